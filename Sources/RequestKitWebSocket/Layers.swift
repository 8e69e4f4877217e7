// The layers RequestKitWebSocket builds on, visible in each of its files.
@_exported import RequestKitModel
