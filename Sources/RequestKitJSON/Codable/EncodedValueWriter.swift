import Foundation

/// Writes an `EncodedValue` as `JSONEncoder` lays JSON out: numbers by their shortest representation without
/// a trailing `.0`, `/` escaped unless `.withoutEscapingSlashes`, pretty output with two-space indentation and
/// `" : "` between key and value, keys sorted by their UTF-8 bytes with `.sortedKeys`.
struct EncodedValueWriter {
    private(set) var output: [UInt8] = []
    private let isPretty: Bool
    private let sortsKeys: Bool
    private let escapesSlashes: Bool
    private var indentation = 0

    init(formatting: JSONEncoder.OutputFormatting) {
        isPretty = formatting.contains(.prettyPrinted)
        sortsKeys = formatting.contains(.sortedKeys)
        escapesSlashes = !formatting.contains(.withoutEscapingSlashes)
        output.reserveCapacity(1024)
    }

    mutating func write(_ value: EncodedValue) {
        switch value {
        case .null: append("null")
        case .bool(let value): append(value ? "true" : "false")
        case .integer(let value): JsonWriter.appendInteger(value.magnitude, isNegative: value < 0, to: &output)
        case .unsignedInteger(let value): JsonWriter.appendInteger(value, isNegative: false, to: &output)
        case .double(let value): appendNumber(value.description)
        case .float(let value): appendNumber(value.description)
        case .numberText(let text): output.append(contentsOf: text.utf8)
        case .string(let string): JsonWriter.appendString(string, escapingSlashes: escapesSlashes, to: &output)
        case .array(let array): writeArray(array.elements)
        case .object(let object): writeObject(object)
        }
    }

    private mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendNumber(_ description: String) {
        var utf8 = description.utf8[...]
        if utf8.count >= 2, utf8.suffix(2).elementsEqual(".0".utf8) {
            utf8 = utf8.dropLast(2)
        }
        output.append(contentsOf: utf8)
    }

    private mutating func writeArray(_ elements: [EncodedValue]) {
        output.append(UInt8(ascii: "["))
        indentation += 1
        if isPretty {
            output.append(UInt8(ascii: "\n"))
        }
        for (offset, element) in elements.enumerated() {
            if offset > 0 {
                output.append(UInt8(ascii: ","))
                if isPretty { output.append(UInt8(ascii: "\n")) }
            }
            writeIndentation()
            write(element)
        }
        indentation -= 1
        if isPretty {
            output.append(UInt8(ascii: "\n"))
            writeIndentation()
        }
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: EncodedObject) {
        output.append(UInt8(ascii: "{"))
        indentation += 1
        if isPretty {
            output.append(UInt8(ascii: "\n"))
        }
        let order =
            sortsKeys
            ? object.keys.indices.sorted { object.keys[$0].utf8.lexicographicallyPrecedes(object.keys[$1].utf8) }
            : Array(object.keys.indices)
        for (offset, position) in order.enumerated() {
            if offset > 0 {
                output.append(UInt8(ascii: ","))
                if isPretty { output.append(UInt8(ascii: "\n")) }
            }
            writeIndentation()
            JsonWriter.appendString(object.keys[position], escapingSlashes: escapesSlashes, to: &output)
            if isPretty {
                append(" : ")
            } else {
                output.append(UInt8(ascii: ":"))
            }
            write(object.values[position])
        }
        indentation -= 1
        if isPretty {
            output.append(UInt8(ascii: "\n"))
            writeIndentation()
        }
        output.append(UInt8(ascii: "}"))
    }

    private mutating func writeIndentation() {
        guard isPretty else { return }
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation * 2))
    }
}
