import Foundation

extension HTTPDateFormat {
    /// The date an HTTP-date stands for, read strictly by RFC 9110 §5.6.7's grammar, or nil: `IMF-fixdate`
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), `rfc850-date` (`Sunday, 06-Nov-94 08:49:37 GMT`, a two-digit year more than
    /// 50 years ahead read as the past century) or `asctime-date` (`Sun Nov  6 08:49:37 1994`). Nothing else: no
    /// other zone, no missing comma, no extra space, no one-digit hour; names are matched without regard to case. Hand-written over the bytes: a cache reads
    /// `Date`, `Expires` and `Last-Modified` of every response it stores, and a `DateFormatter` costs microseconds.
    ///
    /// ```swift
    /// #expect(HTTPDateFormat.strictDate(from: "Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784111777))
    /// #expect(HTTPDateFormat.strictDate(from: "Sun, 06 Nov 1994 08:49:37 UTC") == nil)
    /// ```
    package static func strictDate(from text: String, now: Date = Date()) -> Date? {
        var reader = DateReader(bytes: Array(text.utf8))
        reader.skipSpaces()
        guard let dayName = reader.letters().map(Self.capitalized) else { return nil }
        let date: Date?
        if reader.take(UInt8(ascii: ",")) {
            if dayName.count == 3, shortDays.contains(dayName) {
                date = reader.imfFixdate()
            } else if longDays.contains(dayName) {
                date = reader.rfc850Date(now: now)
            } else {
                return nil
            }
        } else {
            guard dayName.count == 3, shortDays.contains(dayName) else { return nil }
            date = reader.asctimeDate()
        }
        reader.skipSpaces()
        return reader.isAtEnd ? date : nil
    }

    /// `name` with its first letter upper-case and the rest lower-case, as the grammar spells names.
    static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst().lowercased() }

    static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// The reader behind ``HTTPDateFormat/strictDate(from:now:)``.
private struct DateReader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func letters() -> String? {
        let start = index
        while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"),
            (bytes[index] | 0x20) <= UInt8(ascii: "z")
        {
            index += 1
        }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// Exactly `count` digits.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    mutating func month() -> Int? {
        guard let name = letters().map(HTTPDateFormat.capitalized),
            let month = HTTPDateFormat.months.firstIndex(of: name)
        else { return nil }
        return month + 1
    }

    /// `HH:MM:SS` as seconds into the day.
    mutating func time() -> Int? {
        guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), take(UInt8(ascii: ":")),
            let second = digits(2), hour < 24, minute < 60, second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// `, 06 Nov 1994 08:49:37 GMT` after the day name and comma.
    mutating func imfFixdate() -> Date? {
        guard take(0x20), let day = digits(2), take(0x20), let month = month(), take(0x20), let year = digits(4),
            take(0x20), let time = time(), take(0x20), letters()?.uppercased() == "GMT"
        else { return nil }
        return Self.date(year: year, month: month, day: day, seconds: time)
    }

    /// ` 06-Nov-94 08:49:37 GMT` after the day name and comma.
    mutating func rfc850Date(now: Date) -> Date? {
        guard take(0x20), let day = digits(2), take(UInt8(ascii: "-")), let month = month(),
            take(UInt8(ascii: "-")), let shortYear = digits(2), take(0x20), let time = time(), take(0x20),
            letters()?.uppercased() == "GMT"
        else { return nil }
        let thisYear = Int(1970 + now.timeIntervalSince1970 / 31_556_952)
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return Self.date(year: year, month: month, day: day, seconds: time)
    }

    /// ` Nov  6 08:49:37 1994` after the day name.
    mutating func asctimeDate() -> Date? {
        guard take(0x20), let month = month(), take(0x20) else { return nil }
        let day: Int?
        if take(0x20) { day = digits(1) } else { day = digits(2) }
        guard let day, take(0x20), let time = time(), take(0x20), let year = digits(4) else { return nil }
        return Self.date(year: year, month: month, day: day, seconds: time)
    }

    /// The moment of a civil date in UTC, or nil for a day the month does not have.
    static func date(year: Int, month: Int, day: Int, seconds: Int) -> Date? {
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= lengths[month - 1] else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + seconds))
    }
}
