// The layers RequestKitModel builds on, visible in each of its files.
@_exported import RequestKitJSON
