// The layers RequestKitClient builds on, visible in each of its files.
@_exported import RequestKitSending
