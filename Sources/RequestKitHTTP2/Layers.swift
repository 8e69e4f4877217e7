// The layers RequestKitHTTP2 builds on, visible in each of its files.
@_exported import RequestKitModel
