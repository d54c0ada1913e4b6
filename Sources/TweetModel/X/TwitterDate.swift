import Foundation

/// Parses (and writes) the two timestamp forms the APIs use, without `DateFormatter`.
///
/// A formatter is slow to create, locale-sensitive (month names!) and not `Sendable`;
/// both formats are fixed, so a small exact parser is faster and cannot be confused by
/// the machine's locale. Either form is accepted wherever a date appears, because
/// tools that convert between versions do not always convert dates.
public enum TwitterDate {
    /// `Wed Oct 10 20:19:24 +0000 2018` (v1.1, premium) or
    /// `2021-09-22T16:38:16.000Z` (v2, ISO 8601 with optional fraction and offset).
    public static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)
        while bytes.last == UInt8(ascii: " ") { bytes.removeLast() }
        if let first = bytes.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
            return parseISO(bytes)
        }
        return parseV1(bytes)
    }

    // MARK: - v1.1: EEE MMM dd HH:mm:ss Z yyyy

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun",
                                 "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseV1(_ bytes: [UInt8]) -> Date? {
        let fields = bytes.split(separator: UInt8(ascii: " "))
        guard fields.count == 6,
              let month = months.firstIndex(of: String(decoding: fields[1], as: UTF8.self).lowercased()),
              let day = number(fields[2]),
              let time = clock(fields[3]),
              let offset = utcOffset(fields[4]),
              fields[5].count == 4, let year = number(fields[5])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time, offsetSeconds: offset)
    }

    // MARK: - ISO 8601: yyyy-MM-ddTHH:mm:ss[.fff](Z|±HH:mm|±HHmm)

    private static func parseISO(_ bytes: [UInt8]) -> Date? {
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              let year = number(bytes[0..<4]),
              let month = number(bytes[5..<7]),
              let day = number(bytes[8..<10]),
              let time = clock(bytes[11..<19])
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let digitsStart = index
            while index < bytes.count, let digit = digitValue(bytes[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > digitsStart else { return nil }
        }
        let offset: Int
        if index == bytes.count {
            offset = 0   // no zone: the APIs only ever mean UTC
        } else if index + 1 == bytes.count, bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            offset = 0
        } else {
            var zone = Array(bytes[index...])
            if zone.count == 6, zone[3] == UInt8(ascii: ":") { zone.remove(at: 3) }
            guard let parsed = utcOffset(zone[...]) else { return nil }
            offset = parsed
        }
        return date(year: year, month: month, day: day, time: time, offsetSeconds: offset)
            .map { $0.addingTimeInterval(fraction) }
    }

    // MARK: - Pieces

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// A short run of ASCII digits (at most 4, so no overflow is possible).
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 4 else { return nil }
        var value = 0
        for byte in bytes {
            guard let digit = digitValue(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// `HH:mm:ss` as seconds since midnight (`60` seconds allowed for leap seconds).
    private static func clock(_ bytes: ArraySlice<UInt8>) -> Int? {
        let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
              let hour = number(parts[0]), let minute = number(parts[1]), let second = number(parts[2]),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// `+0000`, `-0530`: seconds east of UTC.
    private static func utcOffset(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 5, let sign = bytes.first,
              sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
              let hours = number(bytes.dropFirst().prefix(2)), let minutes = number(bytes.suffix(2)),
              hours < 24, minutes < 60
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    private static func date(year: Int, month: Int, day: Int, time: Int, offsetSeconds: Int) -> Date? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + time - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: - Writing (the demo's sample pages, tests)

    private static let weekdayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Wed Oct 10 20:19:24 +0000 2018`, in UTC, computed (not formatted) so no
    /// locale can leak in; ``parse(_:)`` reads it back.
    public static func v1String(_ date: Date) -> String {
        let p = civil(date)
        return "\(weekdayNames[p.weekday]) \(monthNames[p.month - 1]) \(pad(p.day)) "
            + "\(pad(p.hour)):\(pad(p.minute)):\(pad(p.second)) +0000 \(p.year)"
    }

    /// `2021-09-22T16:38:16.000Z`, as v2 writes it.
    public static func isoString(_ date: Date) -> String {
        let p = civil(date)
        return "\(p.year)-\(pad(p.month))-\(pad(p.day))T\(pad(p.hour)):\(pad(p.minute)):\(pad(p.second)).000Z"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// UTC calendar fields of a date: the inverse of ``daysFromCivil(year:month:day:)``
    /// (Howard Hinnant's civil-from-days).
    private static func civil(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7) % 7
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60, weekday)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    /// algorithm); exact for every 4-digit year.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
