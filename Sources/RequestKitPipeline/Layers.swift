// The layers RequestKitPipeline builds on, visible in each of its files.
@_exported import RequestKitFeatures
@_exported import RequestKitNativeTransport
