import Foundation
import LiteRecord

// The widened schema's features in the reference model (ModelEntities+Features.swift):
// the one-to-one Book.lead ↔ Note.leadOf and the self-referential
// Tag.parent ↔ Tag.children, as `MLink`s like every other to-one, and the
// search of the `.searchable` Note.summary.

extension MLink {
    /// A side of the one-to-one Book.lead ↔ Note.leadOf: a column on each
    /// side, which Docs/Relationships.md's in-memory inverses keep paired.
    var isOneToOne: Bool { self == .bookLead || self == .noteLeadOf }

    /// The other side of a one-to-one.
    var paired: MLink? {
        switch self {
        case .bookLead: .noteLeadOf
        case .noteLeadOf: .bookLead
        default: nil
        }
    }

    /// The to-one a new object of `kind` may be created under (the owner of
    /// a to-many); a one-to-one is set by `relate` steps only.
    static func parentLink(of kind: MKind) -> MLink? { holding(kind).first { !$0.isOneToOne } }
}

extension ReferenceModel {
    /// Sets `link` of `id` to `target`. A one-to-one keeps both sides
    /// paired, as Docs/Relationships.md's "assigning either side updates the
    /// other in memory" says, with every related object loaded: the object
    /// `id` named loses it, and the object `target` was paired with loses
    /// `target` ("steals from the previous partner", DeleteRuleTests).
    mutating func relate(_ id: MID, _ link: MLink, _ target: Int64?) {
        guard let paired = link.paired else { return setFK(id, link, target) }
        if let old = fk(id, link), old != target {
            let oldID = MID(kind: link.target, row: old)
            if isLive(oldID), fk(oldID, paired) == id.row { setFK(oldID, paired, nil) }
        }
        if let target {
            let targetID = MID(kind: link.target, row: target)
            if let previous = fk(targetID, paired), previous != id.row {
                let previousID = MID(kind: link.holder, row: previous)
                if isLive(previousID), fk(previousID, link) == target { setFK(previousID, link, nil) }
            }
            if fk(targetID, paired) != id.row { setFK(targetID, paired, id.row) }
        }
        setFK(id, link, target)
    }

    /// `refresh(_:mergeChanges: false)`: the object is read again, and a
    /// one-to-one pairing made here, a change of both objects, is discarded
    /// on both sides (Docs/Concurrency.md, "Conflicts and merge policies"):
    /// the partner named here lets go of the object (its side reads its
    /// stored value when that is no partner, else nil, still a change), and
    /// the stored partner names it again unless it was paired with another
    /// object here since, which displaces the object (model seeds 31172,
    /// 34914).
    mutating func discardChanges(_ id: MID) {
        let before = held[id]
        reread(id)
        guard let before, held[id] != nil else { return }
        for link in MLink.holding(id.kind) where link.isOneToOne && before.fkChanged.contains(link) {
            guard let paired = link.paired else { continue }
            let stored = store.rows[id]?.fk[link]
            if let named = before.fk[link], named != stored {
                let partner = MID(kind: link.target, row: named)
                if held[partner] != nil, held[partner]?.phase != .deleted, held[partner]?.fk[paired] == id.row {
                    held[partner]?.fk[paired] = nil
                    if partner.row > 0, store.rows[partner]?.fk[paired] == nil {
                        held[partner]?.fkChanged.remove(paired)
                    } else {
                        held[partner]?.fkChanged.insert(paired)
                    }
                }
            }
            guard let stored, stored != before.fk[link] else { continue }
            let partner = MID(kind: link.target, row: stored)
            // Only a side changed here speaks: an unchanged one is a stale
            // read of another writer's pairing, left to its next read.
            guard let object = held[partner], object.phase == .managed, object.fkChanged.contains(paired) else { continue }
            switch object.fk[paired] {
            case nil:
                held[partner]?.fk[paired] = id.row
                held[partner]?.fkChanged.remove(paired)
            case id.row?:
                break
            default:
                setFK(id, link, nil)
            }
        }
    }

    /// The words of a searchable text as Docs/Search.md matches them: runs
    /// of letters and digits, case and diacritics ignored, NFC and NFD alike.
    static func searchWords(_ text: String) -> Set<String> {
        let folded = text.precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var words: Set<String> = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.insert(current)
                current = ""
            }
        }
        if !current.isEmpty { words.insert(current) }
        return words
    }

    /// The stored notes a search for `word` finds (a trailing `*`: a prefix).
    func searchMatches(_ word: String) -> Set<MID> {
        let prefix = word.hasSuffix("*")
        let stem = Self.searchWords(prefix ? String(word.dropLast()) : word).first ?? ""
        return Set(
            store.rows.filter { id, row in
                id.kind == .note && Self.searchWords(row.values.summary).contains { prefix ? $0.hasPrefix(stem) : $0 == stem }
            }.keys)
    }
}

/// What a set-based deletion with the delete rules does to the store
/// (Docs/Relationships.md: "`deleteAll(matching:)` and `truncateAll()` apply
/// the same rules in SQL, in one transaction").
struct MStoreDeletion {
    /// `.validationFailed` (a `.deny`) or `.constraintViolation` (a
    /// `.noAction` reference left behind); nothing is written then.
    var error: LiteRecordError.Kind?
    /// Every row deleted: the kind's and those cascades take.
    var doomed: Set<MID> = []
    /// The rows that stay whose to-one named a doomed row (`.nullify`),
    /// with the to-ones cleared.
    var nullified: [MID: [MLink]] = [:]
}

extension ReferenceModel {
    /// Deleting every stored row of `kind` with the rules, in the store.
    func storeDeletion(of kind: MKind) -> MStoreDeletion {
        var plan = MStoreDeletion()
        plan.doomed = Set(store.rows.keys.filter { $0.kind == kind })
        var queue = Array(plan.doomed)
        while let id = queue.popLast() {
            for link in MLink.pointing(at: id.kind) where link.rule == .cascade {
                for (other, row) in store.rows where other.kind == link.holder && row.fk[link] == id.row && !plan.doomed.contains(other) {
                    plan.doomed.insert(other)
                    queue.append(other)
                }
            }
        }
        for (id, row) in store.rows where !plan.doomed.contains(id) {
            for (link, target) in row.fk where plan.doomed.contains(MID(kind: link.target, row: target)) {
                switch link.rule {
                case .deny: plan.error = .validationFailed
                case .noAction: if plan.error == nil { plan.error = .constraintViolation }
                case .nullify: plan.nullified[id, default: []].append(link)
                case .cascade: break
                }
            }
        }
        // Tag.books is `.deny`: a doomed tag still linked to a book that stays.
        for pair in store.joins where plan.doomed.contains(MID(kind: .tag, row: pair.tag)) && !plan.doomed.contains(MID(kind: .book, row: pair.book)) {
            plan.error = .validationFailed
        }
        // Book.notes' minimum holds for a list the deletion changes, in the
        // store as in a save (a store-side cascade's counted lists: a cascade through another
        // book's lead, or the notes themselves, taking a book's last note).
        for (id, _) in store.rows where id.kind == .book && !plan.doomed.contains(id) {
            let notes = store.rows.filter { $0.key.kind == .note && $0.value.fk[.noteBook] == id.row }.keys
            let left = notes.filter { !plan.doomed.contains($0) }
            if left.count < Self.minNotesPerBook, left.count != notes.count { plan.error = .validationFailed }
        }
        return plan
    }

    /// The store after `plan` succeeded: doomed rows (and their links) gone,
    /// the cleared to-ones `NULL`, each clearing a write of its row.
    mutating func applyStoreDeletion(_ plan: MStoreDeletion) {
        for (id, links) in plan.nullified {
            for link in links {
                store.rows[id]?.fk[link] = nil
                store.rows[id]?.version += 1
            }
        }
        for id in plan.doomed { storeDelete(id) }
    }
}
