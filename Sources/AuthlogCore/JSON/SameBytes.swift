#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether `other` has exactly these UTF-8 bytes. Member names are told apart by their bytes, not by
    /// Unicode canonical equivalence as `==` would; two native strings compare with one `memcmp` instead of
    /// `utf8.elementsEqual`'s byte-by-byte walk through the view (it was the largest single cost of
    /// parsing and decoding event payloads: every member lookup and every duplicate check).
    func hasSameBytes(as other: String) -> Bool {
        let mine = self.utf8
        let theirs = other.utf8
        guard mine.count == theirs.count else { return false }
        let compared = mine.withContiguousStorageIfAvailable { left in
            theirs.withContiguousStorageIfAvailable { right -> Bool in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return memcmp(leftBase, rightBase, left.count) == 0
            }
        }
        return (compared ?? nil) ?? mine.elementsEqual(theirs)
    }
}
