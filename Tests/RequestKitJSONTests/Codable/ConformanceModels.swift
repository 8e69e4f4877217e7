import Foundation

// Codable models for the differential tests: each exercises a part of the Codable machinery.

struct NestedOptionals: Codable {
    let a: Int??
    let b: [String?]?
    let c: [String: Int?]
}

indirect enum Shape: Codable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case labelled(String, Shape?)
    case empty
}

struct NonStringKeys: Codable {
    let byInt: [Int: String]
    let byUInt8: [UInt8: Bool]
    let byEnum: [Color: Int]

    enum Color: String, Codable, CodingKeyRepresentable {
        case red, green
    }
}

class Animal: Codable {
    let name: String

    init(name: String) {
        self.name = name
    }
}

/// A subclass that keeps its superclass's members in a `super` member, through `superDecoder()`.
final class Dog: Animal {
    let breed: String

    enum CodingKeys: String, CodingKey {
        case breed
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(breed, forKey: .breed)
        try super.encode(to: container.superEncoder())
    }
}

/// A subclass that shares its superclass's container.
final class Cat: Animal {
    let lives: Int

    enum CodingKeys: String, CodingKey {
        case lives
    }

    required init(from decoder: any Decoder) throws {
        lives = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lives)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lives, forKey: .lives)
        try super.encode(to: encoder)
    }
}

/// Reads a flat JSON object into nested Swift values with `nestedContainer`, `nestedUnkeyedContainer`,
/// `superDecoder(forKey:)` and an unkeyed container's `superDecoder()`.
struct Flattened: Codable {
    let id: Int
    let street: String
    let city: String
    let tags: [String]
    let first: Int
    let owner: Animal

    enum CodingKeys: String, CodingKey {
        case id, address, tags, owner
    }

    enum AddressKeys: String, CodingKey {
        case street, city
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        let address = try container.nestedContainer(keyedBy: AddressKeys.self, forKey: .address)
        street = try address.decode(String.self, forKey: .street)
        city = try address.decode(String.self, forKey: .city)
        var tagList = try container.nestedUnkeyedContainer(forKey: .tags)
        var tags: [String] = []
        first = try Int(from: tagList.superDecoder())
        while !tagList.isAtEnd {
            tags.append(try tagList.decode(String.self))
        }
        self.tags = tags
        owner = try Animal(from: container.superDecoder(forKey: .owner))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        var address = container.nestedContainer(keyedBy: AddressKeys.self, forKey: .address)
        try address.encode(street, forKey: .street)
        try address.encode(city, forKey: .city)
        var tagList = container.nestedUnkeyedContainer(forKey: .tags)
        try first.encode(to: tagList.superEncoder())
        for tag in tags {
            try tagList.encode(tag)
        }
        try owner.encode(to: container.superEncoder(forKey: .owner))
    }
}

/// Every scalar type, optional and not.
struct Scalars: Codable {
    let bool: Bool
    let string: String
    let double: Double
    let float: Float
    let int: Int
    let int8: Int8
    let int16: Int16
    let int32: Int32
    let int64: Int64
    let uint: UInt
    let uint8: UInt8
    let uint16: UInt16
    let uint32: UInt32
    let uint64: UInt64
    let optionalBool: Bool?
    let optionalString: String?
    let optionalDouble: Double?
    let optionalInt: Int?
}

/// Foundation's types that JSON strategies govern.
struct FoundationValues: Codable {
    let date: Date
    let data: Data
    let url: URL
    let decimal: Decimal
    let optionalDate: Date?
}

struct SnakeCase: Codable {
    let userId: Int
    let firstName: String
    let _private: Bool?
    let urlString: String?
    let nested: [String: Int]
}

struct Doubles: Codable {
    let values: [Double]
}
