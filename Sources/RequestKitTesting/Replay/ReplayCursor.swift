/// Which recorded entries replay has used: identical requests (a polling loop's) replay in recorded order, each
/// entry once, and the last one again only when the cassette marks it as repeating.
struct ReplayCursor: Sendable, Equatable {
    private(set) var used: [Bool]

    init(count: Int) {
        used = Array(repeating: false, count: count)
    }

    /// A new entry, recorded after the others: already used, since its request was just answered live.
    mutating func appendUsed() {
        used.append(true)
    }

    /// The entry that answers a request matching `candidates` (entry indices in recorded order), marked as used:
    /// the first unused one; when all are used, the last one if `repeats(last)`; nil otherwise.
    mutating func take(_ candidates: [Int], repeats: (Int) -> Bool) -> Int? {
        if let index = candidates.first(where: { !used[$0] }) {
            used[index] = true
            return index
        }
        if let last = candidates.last, repeats(last) { return last }
        return nil
    }
}
