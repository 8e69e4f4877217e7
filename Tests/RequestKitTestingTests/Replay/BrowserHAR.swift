import Foundation
import RequestKitJSON

/// A HAR file as a browser's developer tools export it: two pages, HTTP/2 pseudo-headers, a redirect, compressed
/// responses whose `content.size` is the decoded length, an image in base64, a JSON POST, a request the browser
/// blocked (status 0), cookies listed beside their headers, and fields of the browser's own (`_initiator`).
enum BrowserHAR {
    static let html = "<!doctype html><title>Shop</title><h1>Welcome</h1>"
    static let products = #"{"page":1,"products":[{"sku":"A-1","price":12.5},{"sku":"B-2","price":7}]}"#
    static let logo = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D])

    static var text: String {
        """
        {
          "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "browser": {"name": "Chrome", "version": "131.0.6778.86"},
            "pages": [
              {"startedDateTime": "2026-11-30T09:00:00.000Z", "id": "page_1", "title": "https://shop.example/",
               "pageTimings": {"onContentLoad": 412.5, "onLoad": 690.1}},
              {"startedDateTime": "2026-11-30T09:00:05.120+01:00", "id": "page_2", "title": "https://shop.example/cart",
               "pageTimings": {"onContentLoad": -1, "onLoad": -1}}
            ],
            "entries": [
              {
                "_initiator": {"type": "other"}, "_priority": "VeryHigh", "_resourceType": "document",
                "cache": {}, "connection": "443", "pageref": "page_1",
                "request": {
                  "method": "GET", "url": "https://shop.example/", "httpVersion": "h2",
                  "headers": [
                    {"name": ":authority", "value": "shop.example"}, {"name": ":method", "value": "GET"},
                    {"name": ":path", "value": "/"}, {"name": ":scheme", "value": "https"},
                    {"name": "accept", "value": "text/html"}, {"name": "cookie", "value": "sid=browser-cookie"}
                  ],
                  "queryString": [],
                  "cookies": [{"name": "sid", "value": "browser-cookie", "path": "/", "domain": "shop.example",
                               "expires": "2027-01-01T00:00:00.000Z", "httpOnly": true, "secure": true}],
                  "headersSize": -1, "bodySize": 0
                },
                "response": {
                  "status": 301, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "location", "value": "https://shop.example/home"},
                              {"name": "content-length", "value": "0"}],
                  "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                  "redirectURL": "https://shop.example/home", "headersSize": -1, "bodySize": -1,
                  "_transferSize": 120, "_error": null
                },
                "serverIPAddress": "203.0.113.10", "startedDateTime": "2026-11-30T09:00:00.010Z", "time": 48.25,
                "timings": {"blocked": 3.1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 44.05,
                            "receive": 0.9, "_blocked_queueing": 1.2}
              },
              {
                "_resourceType": "document", "cache": {}, "pageref": "page_1",
                "request": {
                  "method": "GET", "url": "https://shop.example/home", "httpVersion": "h2",
                  "headers": [{"name": ":path", "value": "/home"}, {"name": "accept-encoding", "value": "gzip, br"}],
                  "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
                },
                "response": {
                  "status": 200, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "text/html; charset=utf-8"},
                              {"name": "content-encoding", "value": "gzip"},
                              {"name": "content-length", "value": "40"}],
                  "cookies": [],
                  "content": {"size": \(html.utf8.count), "compression": \(html.utf8.count - 40),
                              "mimeType": "text/html", "text": \(Self.quoted(html))},
                  "redirectURL": "", "headersSize": -1, "bodySize": 40, "_transferSize": 180
                },
                "startedDateTime": "2026-11-30T09:00:00.060Z", "time": 30.5,
                "timings": {"blocked": 1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 28.4, "receive": 2}
              },
              {
                "_resourceType": "fetch", "cache": {}, "pageref": "page_1",
                "request": {
                  "method": "GET", "url": "https://shop.example/api/products?page=1&sort=price", "httpVersion": "h2",
                  "headers": [{"name": "accept", "value": "application/json"}],
                  "queryString": [{"name": "page", "value": "1"}, {"name": "sort", "value": "price"}],
                  "cookies": [], "headersSize": -1, "bodySize": 0
                },
                "response": {
                  "status": 200, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "application/json"},
                              {"name": "content-encoding", "value": "br"}],
                  "cookies": [],
                  "content": {"size": \(products.utf8.count), "compression": 31, "mimeType": "application/json",
                              "text": \(Self.quoted(products))},
                  "redirectURL": "", "headersSize": -1, "bodySize": \(products.utf8.count - 31)
                },
                "startedDateTime": "2026-11-30T09:00:00.200Z", "time": 12,
                "timings": {"send": 0, "wait": 11, "receive": 1}
              },
              {
                "_resourceType": "image", "cache": {}, "pageref": "page_1",
                "request": {
                  "method": "GET", "url": "https://shop.example/logo.png", "httpVersion": "h2", "headers": [],
                  "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
                },
                "response": {
                  "status": 200, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "image/png"}], "cookies": [],
                  "content": {"size": \(logo.count), "mimeType": "image/png", "encoding": "base64",
                              "text": "\(logo.base64EncodedString())"},
                  "redirectURL": "", "headersSize": -1, "bodySize": \(logo.count)
                },
                "startedDateTime": "2026-11-30T09:00:00.300Z", "time": 5,
                "timings": {"send": 0, "wait": 4, "receive": 1}
              },
              {
                "_resourceType": "script", "cache": {}, "pageref": "page_1",
                "request": {
                  "method": "GET", "url": "https://ads.example/track.js", "httpVersion": "", "headers": [],
                  "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0
                },
                "response": {
                  "status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                  "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
                  "_error": "net::ERR_BLOCKED_BY_CLIENT"
                },
                "startedDateTime": "2026-11-30T09:00:00.310Z", "time": 0,
                "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0}
              },
              {
                "_resourceType": "fetch", "cache": {}, "pageref": "page_2",
                "request": {
                  "method": "POST", "url": "https://shop.example/api/cart", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "application/json"}],
                  "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 21,
                  "postData": {"mimeType": "application/json", "text": "{\\"sku\\":\\"A-1\\",\\"qty\\":2}"}
                },
                "response": {
                  "status": 201, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "application/json"}], "cookies": [],
                  "content": {"size": 13, "mimeType": "application/json", "text": "{\\"items\\":1}\\n\\n"},
                  "redirectURL": "", "headersSize": -1, "bodySize": 13
                },
                "startedDateTime": "2026-11-30T09:00:05.200Z", "time": 20.75,
                "timings": {"send": 0.5, "wait": 19, "receive": 1.25}
              }
            ]
          }
        }
        """
    }

    private static func quoted(_ text: String) -> String {
        Json(string: text).serializedString()
    }
}
