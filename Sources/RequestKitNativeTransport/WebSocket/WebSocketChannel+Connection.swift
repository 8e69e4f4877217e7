/// The native transport's channel carries a socket's messages on the network.
extension WebSocketChannel: WebSocketConnection {}
