// Codable models of the benchmark documents twitter.json and citm_catalog.json (../shared/data/json-benchmark),
// shared by the conformance tests and the Benchmarks executable (a symbolic link there).

/// twitter.json: a search result with its statuses and their users.
struct TwitterSearch: Codable {
    let statuses: [TwitterStatus]
    let searchMetadata: TwitterSearchMetadata

    enum CodingKeys: String, CodingKey {
        case statuses
        case searchMetadata = "search_metadata"
    }
}

/// One status; a retweet carries the original status.
final class TwitterStatus: Codable {
    let metadata: TwitterStatusMetadata
    let createdAt: String
    let id: UInt64
    let idString: String
    let text: String
    let source: String
    let truncated: Bool
    let inReplyToStatusID: UInt64?
    let inReplyToStatusIDString: String?
    let inReplyToUserID: UInt64?
    let inReplyToUserIDString: String?
    let inReplyToScreenName: String?
    let user: TwitterUser
    let retweetedStatus: TwitterStatus?
    let retweetCount: Int
    let favoriteCount: Int
    let entities: TwitterEntities
    let favorited: Bool
    let retweeted: Bool
    let possiblySensitive: Bool?
    let lang: String

    enum CodingKeys: String, CodingKey {
        case metadata
        case createdAt = "created_at"
        case id
        case idString = "id_str"
        case text, source, truncated
        case inReplyToStatusID = "in_reply_to_status_id"
        case inReplyToStatusIDString = "in_reply_to_status_id_str"
        case inReplyToUserID = "in_reply_to_user_id"
        case inReplyToUserIDString = "in_reply_to_user_id_str"
        case inReplyToScreenName = "in_reply_to_screen_name"
        case user
        case retweetedStatus = "retweeted_status"
        case retweetCount = "retweet_count"
        case favoriteCount = "favorite_count"
        case entities, favorited, retweeted
        case possiblySensitive = "possibly_sensitive"
        case lang
    }
}

struct TwitterStatusMetadata: Codable {
    let resultType: String
    let isoLanguageCode: String

    enum CodingKeys: String, CodingKey {
        case resultType = "result_type"
        case isoLanguageCode = "iso_language_code"
    }
}

struct TwitterUser: Codable {
    let id: UInt64
    let idString: String
    let name: String
    let screenName: String
    let location: String
    let description: String
    let url: String?
    let entities: TwitterUserEntities
    let protected: Bool
    let followersCount: Int
    let friendsCount: Int
    let listedCount: Int
    let createdAt: String
    let favouritesCount: Int
    let utcOffset: Int?
    let timeZone: String?
    let geoEnabled: Bool
    let verified: Bool
    let statusesCount: Int
    let lang: String
    let contributorsEnabled: Bool
    let isTranslator: Bool
    let isTranslationEnabled: Bool
    let profileBackgroundColor: String
    let profileBackgroundImageURL: String
    let profileBackgroundImageURLHTTPS: String
    let profileBackgroundTile: Bool
    let profileImageURL: String
    let profileImageURLHTTPS: String
    let profileBannerURL: String?
    let profileLinkColor: String
    let profileSidebarBorderColor: String
    let profileSidebarFillColor: String
    let profileTextColor: String
    let profileUseBackgroundImage: Bool
    let defaultProfile: Bool
    let defaultProfileImage: Bool
    let following: Bool
    let followRequestSent: Bool
    let notifications: Bool

    enum CodingKeys: String, CodingKey {
        case id
        case idString = "id_str"
        case name
        case screenName = "screen_name"
        case location, description, url, entities, protected
        case followersCount = "followers_count"
        case friendsCount = "friends_count"
        case listedCount = "listed_count"
        case createdAt = "created_at"
        case favouritesCount = "favourites_count"
        case utcOffset = "utc_offset"
        case timeZone = "time_zone"
        case geoEnabled = "geo_enabled"
        case verified
        case statusesCount = "statuses_count"
        case lang
        case contributorsEnabled = "contributors_enabled"
        case isTranslator = "is_translator"
        case isTranslationEnabled = "is_translation_enabled"
        case profileBackgroundColor = "profile_background_color"
        case profileBackgroundImageURL = "profile_background_image_url"
        case profileBackgroundImageURLHTTPS = "profile_background_image_url_https"
        case profileBackgroundTile = "profile_background_tile"
        case profileImageURL = "profile_image_url"
        case profileImageURLHTTPS = "profile_image_url_https"
        case profileBannerURL = "profile_banner_url"
        case profileLinkColor = "profile_link_color"
        case profileSidebarBorderColor = "profile_sidebar_border_color"
        case profileSidebarFillColor = "profile_sidebar_fill_color"
        case profileTextColor = "profile_text_color"
        case profileUseBackgroundImage = "profile_use_background_image"
        case defaultProfile = "default_profile"
        case defaultProfileImage = "default_profile_image"
        case following
        case followRequestSent = "follow_request_sent"
        case notifications
    }
}

struct TwitterUserEntities: Codable {
    let description: TwitterURLList
    let url: TwitterURLList?
}

struct TwitterURLList: Codable {
    let urls: [TwitterURLEntity]
}

struct TwitterEntities: Codable {
    let hashtags: [TwitterHashtag]
    let symbols: [TwitterHashtag]
    let urls: [TwitterURLEntity]
    let userMentions: [TwitterUserMention]
    let media: [TwitterMedia]?

    enum CodingKeys: String, CodingKey {
        case hashtags, symbols, urls
        case userMentions = "user_mentions"
        case media
    }
}

struct TwitterHashtag: Codable {
    let text: String
    let indices: [Int]
}

struct TwitterURLEntity: Codable {
    let url: String
    let expandedURL: String
    let displayURL: String
    let indices: [Int]

    enum CodingKeys: String, CodingKey {
        case url
        case expandedURL = "expanded_url"
        case displayURL = "display_url"
        case indices
    }
}

struct TwitterUserMention: Codable {
    let screenName: String
    let name: String
    let id: UInt64
    let idString: String
    let indices: [Int]

    enum CodingKeys: String, CodingKey {
        case screenName = "screen_name"
        case name, id
        case idString = "id_str"
        case indices
    }
}

struct TwitterMedia: Codable {
    let id: UInt64
    let idString: String
    let indices: [Int]
    let mediaURL: String
    let mediaURLHTTPS: String
    let url: String
    let displayURL: String
    let expandedURL: String
    let type: String
    let sizes: [String: TwitterMediaSize]
    let sourceStatusID: UInt64?
    let sourceStatusIDString: String?

    enum CodingKeys: String, CodingKey {
        case id
        case idString = "id_str"
        case indices
        case mediaURL = "media_url"
        case mediaURLHTTPS = "media_url_https"
        case url
        case displayURL = "display_url"
        case expandedURL = "expanded_url"
        case type, sizes
        case sourceStatusID = "source_status_id"
        case sourceStatusIDString = "source_status_id_str"
    }
}

struct TwitterMediaSize: Codable {
    let w: Int
    let h: Int
    let resize: String
}

struct TwitterSearchMetadata: Codable {
    let completedIn: Double
    let maxID: UInt64
    let maxIDString: String
    let nextResults: String
    let query: String
    let refreshURL: String
    let count: Int
    let sinceID: UInt64
    let sinceIDString: String

    enum CodingKeys: String, CodingKey {
        case completedIn = "completed_in"
        case maxID = "max_id"
        case maxIDString = "max_id_str"
        case nextResults = "next_results"
        case query
        case refreshURL = "refresh_url"
        case count
        case sinceID = "since_id"
        case sinceIDString = "since_id_str"
    }
}

/// citm_catalog.json: a ticketing catalog of events and performances, with names by numeric identifier.
struct Catalog: Codable {
    let areaNames: [Int: String]
    let audienceSubCategoryNames: [Int: String]
    let blockNames: [String: String]
    let events: [String: CatalogEvent]
    let performances: [CatalogPerformance]
    let seatCategoryNames: [String: String]
    let subTopicNames: [String: String]
    let subjectNames: [String: String]
    let topicNames: [String: String]
    let topicSubTopics: [String: [Int]]
    let venueNames: [String: String]
}

struct CatalogEvent: Codable {
    let description: String?
    let id: Int
    let logo: String?
    let name: String
    let subTopicIds: [Int]
    let subjectCode: String?
    let subtitle: String?
    let topicIds: [Int]
}

struct CatalogPerformance: Codable {
    let eventId: Int
    let id: Int
    let logo: String?
    let name: String?
    let prices: [CatalogPrice]
    let seatCategories: [CatalogSeatCategory]
    let seatMapImage: String?
    let start: Int
    let venueCode: String
}

struct CatalogPrice: Codable {
    let amount: Int
    let audienceSubCategoryId: Int
    let seatCategoryId: Int
}

struct CatalogSeatCategory: Codable {
    let areas: [CatalogArea]
    let seatCategoryId: Int
}

struct CatalogArea: Codable {
    let areaId: Int
    let blockIds: [Int]
}
