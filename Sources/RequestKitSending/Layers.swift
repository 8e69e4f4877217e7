// The layers RequestKitSending builds on, visible in each of its files.
@_exported import RequestKitDSL
@_exported import RequestKitPipeline
