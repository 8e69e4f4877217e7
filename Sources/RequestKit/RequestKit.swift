// RequestKit is one module to its users: every layer below is re-exported, so `import RequestKit` brings the whole
// public surface and `RequestKit.Request` names the request type. The layers are separate targets only so that the
// compiler keeps each one from using the layers above it (CONTRIBUTING.md, Layout).
@_exported import RequestKitClient
@_exported import RequestKitComposition
@_exported import RequestKitConnect
@_exported import RequestKitDSL
@_exported import RequestKitFeatures
@_exported import RequestKitJSON
@_exported import RequestKitModel
@_exported import RequestKitNativeTransport
@_exported import RequestKitPipeline
@_exported import RequestKitSending
@_exported import RequestKitSockets
@_exported import RequestKitURLSession
@_exported import RequestKitWebSocket
