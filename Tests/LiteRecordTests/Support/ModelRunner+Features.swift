import Foundation
@testable import LiteRecord

// The widened schema's features in the runner: the seed's one-to-one,
// self-reference, stored collection and searchable text, the features a run
// meets, and search results as an observed channel.

extension ModelRunner {
    /// The seed's share of the features: Book b1's lead is note n1, tag t1
    /// is a child of t0, and two notes hold searchable text and words.
    static func seedFeatures(books: [MTBook], tags: [MTTag], notes: [MTNote]) {
        books[1].lead = notes[1]
        tags[1].parent = tags[0]
        notes[0].summary = MValues.summaries[1]
        notes[2].summary = MValues.summaries[3]
        notes[2].words = ["a"]
    }

    /// The features a relationship step meets, for the coverage line.
    func noteFeatures(_ link: MLink) {
        if link.isOneToOne { coverage.features.insert(.oneToOne) }
        if link == .tagParent { coverage.features.insert(.selfReferential) }
    }

    /// The features a stored row shows (besides `MCoverage.noteValues`).
    func noteFeatures(_ id: MID, _ row: MRow) {
        if !row.values.words.isEmpty { coverage.features.insert(.storedCollection) }
        if id.kind == .tag, row.fk[.tagParent] != nil, model.store.rows[MID(kind: .tag, row: row.fk[.tagParent] ?? 0)]?.fk[.tagParent] != nil {
            // A grandchild: made by the run, not the seed.
            coverage.features.insert(.selfReferential)
        }
    }

    /// What a search box is asked after a commit: words the summaries hold
    /// (in other cases and forms), a prefix, and a word none holds.
    static let searchQueries = ["ete", "CAFE", "cafe\u{301}*", "angstrom", "A\u{30A}NGSTR\u{D6}M", "lait", "noir", "mail", "2024", "zzz"]

    /// Docs/Search.md: a search reads what is saved, and the index stays exact
    /// through every save, set-based delete and `truncateAll`. After a step
    /// that commits, searches (from a context of its own, so as not to touch
    /// the context under test) must find exactly the stored notes whose
    /// summary holds the word.
    func checkSearch() throws {
        searches += 1
        let query = Self.searchQueries[searches % Self.searchQueries.count]
        // A context of its own, kept while the results are read.
        let reader = stack.newContext()
        let found = try MTNote.search(query, in: reader)
        let got = withExtendedLifetime(reader) { Set(found.compactMap { $0.recordID.map { MID(kind: .note, row: $0.rowID) } }) }
        let want = model.searchMatches(query)
        coverage.channels.insert(.searchResults)
        if !got.isEmpty { coverage.features.insert(.searchable) }
        guard got == want, found.count == got.count else {
            throw mismatch("search", "search(\"\(query)\") found \(found.count) notes \(got.sorted()), the model \(want.sorted())")
        }
    }
}

// MARK: Set-based steps

extension ModelRunner {
    func runFeature(_ op: MFeatureOp) throws {
        switch op {
        case .updateAllValue(let field, let pick, let elsewhere): try updateAllValue(field, pick, elsewhere: elsewhere)
        case .deleteAll(let kind, let truncate, let elsewhere): try deleteAllRows(kind, truncate, elsewhere: elsewhere)
        case .takeCode(let pick, let conflict): try takeCode(pick, conflict: conflict)
        }
    }

    /// A held note B takes the code a stored note A holds (unique values met
    /// under a conflict): A preferably one whose deletion or code change is pending here;
    /// with `conflict`, another writer edits A's text first, so that the
    /// save meets A's conflict and B's claim on the code together. The
    /// contract (Docs/Concurrency.md, MergePolicy): under `.objectTrumps` the
    /// conflict resolves and the save goes on — A's deletion or new code is
    /// written, and B's code with it; under `.error` the save reports the
    /// conflict; under `.storeTrumps` A keeps its row, and B's code clashes.
    private func takeCode(_ pick: UInt32, conflict: Bool) throws {
        let holders = model.store.rows.filter { $0.key.kind == .note && $0.value.values.code != nil }.keys.sorted()
        let pending = holders.filter { id in
            guard let held = model.held[id] else { return false }
            return held.phase == .deleted || held.values.code != model.store.rows[id]?.values.code
        }
        guard let holder = choose(pending.isEmpty ? holders : pending, pick >> 8), let code = model.store.rows[holder]?.values.code else {
            return note("takeCode: no note holds a code")
        }
        let takers = live(.note).filter { $0 != holder && model.held[$0]?.values.code != code }
        guard let taker = choose(takers, pick), let object = handles[taker], var values = model.held[taker]?.values else {
            return note("takeCode: no note to take \(holder)'s code")
        }
        if conflict {
            let text = nextText()
            let row = holder.row
            try otherWriter { context in
                guard let found = try ModelAccess.find(.note, row: row, in: context) else {
                    throw LiteRecordError(.invalidObject, "the model's \(holder) is not in the store")
                }
                ModelAccess.setText(found, text)
            }
            model.storeEdit(holder, text)
            expectedEvents.append(MEvent(updated: [holder]))
            note("write{edit \(holder) = \(text)}")
        }
        // A hand-over, in some sequences: the holder, held and keeping the
        // code here, gives it up in the same save. Docs/Concurrency.md: an
        // update may take a unique value another record of the save gives
        // up, whatever the order of their rows, and one whose conflict the
        // policy resolves included (seed 120169).
        var gaveUp = ""
        if pick & 0x10 != 0, let holderObject = handles[holder], var given = model.held[holder]?.values, model.held[holder]?.phase == .managed,
            given.code == code, !model.isGone(holder)
        {
            given.code = nil
            ModelAccess.setValues(holderObject, given)
            model.held[holder]?.values = given
            model.held[holder]?.valuesChanged.insert(.code)
            gaveUp = "; \(holder).code = nil, giving it up"
        }
        values.code = code
        ModelAccess.setValues(object, values)
        model.held[taker]?.values = values
        model.held[taker]?.valuesChanged.insert(.code)
        coverage.ops.insert(.takeCode)
        note(
            "\(taker).code = \(code), the code of \(holder) (\(model.held[holder].map { $0.phase == .deleted ? "deleted here" : "its code \($0.values.code ?? "nil") here" } ?? "not held"))\(gaveUp)"
        )
    }

    /// The value `updateAll` sets, from the field's candidates (ModelValues.swift).
    static func updatedValues(_ field: MField, _ pick: UInt32) -> MValues {
        var values = MValues()
        let index = Int(pick / 3)
        switch field {
        case .count: values.count = MValues.counts[index % MValues.counts.count]
        case .rank: values.rank = MValues.ranks[index % MValues.ranks.count]
        case .code: values.code = MValues.codes[index % MValues.codes.count]
        default: values.summary = MValues.summaries[index % MValues.summaries.count]
        }
        return values
    }

    /// Docs/Queries.md, "Set-based updates", for values other than text: the
    /// rows the predicate selects (but those the context is deleting) that do
    /// not hold the value already are written, each version moving on; a
    /// `.unique` clash is `.constraintViolation` and nothing is written; the
    /// context's objects take the value and version unless they set that
    /// value themselves (their save then meets the conflict); the search
    /// index follows.
    func updateAllValue(_ field: MField, _ pick: UInt32, elsewhere: Bool) throws {
        let values = Self.updatedValues(field, pick)
        let notes = model.store.rows.keys.filter { $0.kind == .note }.sorted()
        // One stored note's text (texts are ASCII, or empty), or every note.
        let text: String? = pick % 3 == 0 ? choose(notes, pick / 3).flatMap { model.store.rows[$0]?.text } : nil
        let selected = notes.filter { id in
            (text == nil || model.store.rows[id]?.text == text) && (elsewhere || model.held[id]?.phase != .deleted)
        }
        let written = selected.filter { model.store.rows[$0]?.values.differs(values, field) == true }
        var after = model.store
        for id in written { after.rows[id]?.values.set(field, from: values) }
        let clash = after.duplicateCode != nil
        let described = "updateAll(Note.\(field) = \(values) where \(text.map { "text == \"\($0)\"" } ?? "all"))"
        coverage.ops.insert(elsewhere ? .writeUpdateAll : .updateAll)
        var failure: LiteRecordError?
        var count = 0
        do {
            if elsewhere {
                count = try otherWriter { context in try ModelAccess.updateAll(field, values, text: text, in: context) }
            } else {
                count = try ModelAccess.updateAll(field, values, text: text, in: context)
            }
        } catch let error as LiteRecordError {
            failure = error
        }
        note("\(elsewhere ? "write{" : "")\(described)\(elsewhere ? "}" : "") → \(failure.map { "\($0.kind)" } ?? "\(count) rows")")
        if clash {
            guard failure?.kind == .constraintViolation else {
                throw mismatch("updateAll outcome: constraintViolation, got \(failure.map { "\($0.kind)" } ?? "success")", "\(described) gives two notes one code")
            }
            if field == .code { coverage.features.insert(.uniqueAttribute) }
            return try compareStore()
        }
        if let failure { throw mismatch("updateAll outcome: success, got \(failure.kind)", failure.message) }
        guard count == written.count else {
            throw mismatch("updateAll", "\(described) wrote \(count) rows; the model \(written.count)")
        }
        for id in written {
            let before = model.store.rows[id]?.version
            model.store.rows[id]?.values.set(field, from: values)
            model.store.rows[id]?.version += 1
            guard !elsewhere, var held = model.held[id], held.phase == .managed, let row = model.store.rows[id] else { continue }
            // A value set here keeps its value and the version it is based on.
            guard !held.valuesChanged.contains(field) else { continue }
            guard held.changed else {
                model.held[id] = MHeld(row)
                continue
            }
            if !held.textChanged { held.text = row.text }
            held.takeUnchangedValues(of: row)
            // Behind the store already (another writer changed the row since
            // it was read): its edits keep the version, and the values, they
            // are based on.
            if held.version == before {
                held.readText = row.text
                held.readValues = row.values
                held.version = row.version
            }
            model.held[id] = held
        }
        if !written.isEmpty { expectedEvents.append(MEvent(updated: Set(written))) }
        try compareStore()
    }

    /// Docs/Queries.md, "Deleting", and Docs/Relationships.md: `deleteAll`
    /// and `truncateAll` apply the delete rules in SQL, in one transaction —
    /// cascades followed in the store, a `.deny` refused before anything is
    /// deleted, the to-ones left behind cleared (each a write of its row),
    /// and a `.noAction` reference left behind fails the commit. In the
    /// context under test, it "forgets the deleted objects", its objects
    /// whose to-ones were cleared follow their rows, and its unsaved objects
    /// naming a deleted row meet the rule deleting the loaded owner applies
    /// (`.deny` refuses, `.cascade` deletes them, `.nullify` clears them).
    func deleteAllRows(_ kind: MKind, _ truncate: Bool, elsewhere: Bool) throws {
        let name = "\(truncate ? "truncateAll" : "deleteAll")(\(kind))"
        let plan = model.storeDeletion(of: kind)
        // `truncateAll` leaves no record of the kind: a pending to-one naming
        // one a merged write deleted (forgotten here) is cleared too, as one
        // naming a stored row is (seed 30602). One whose record is still held
        // (with edits here, or never merged) is the save's to judge (seeds
        // 30726, 31257).
        func truncatesGone(_ link: MLink, _ target: Int64) -> Bool {
            let id = MID(kind: kind, row: target)
            return truncate && link.target == kind && model.forgotten.contains(id) && model.held[id] == nil && model.store.rows[id] == nil
        }
        var strays: [(MID, MLink)] = []
        if !elsewhere {
            // Not specified: a deletion or a many-to-many change pending here
            // for a row it deletes; an unsaved `.noAction` reference to one.
            if plan.doomed.contains(where: { model.held[$0]?.phase == .deleted }) {
                return note("\(name): left out, a deletion of a row it deletes is pending")
            }
            if model.links.keys.contains(where: { plan.doomed.contains(MID(kind: .book, row: $0.book)) || plan.doomed.contains(MID(kind: .tag, row: $0.tag)) }) {
                return note("\(name): left out, a link of a row it deletes is pending")
            }
            // Not specified either: a held object whose row another writer
            // deleted, its to-one still naming a row this deletes (whether
            // the rule takes it along as a loaded owner's list would).
            let goneHolder = model.held.contains { id, held in
                held.phase == .managed && id.row > 0 && model.store.rows[id] == nil
                    && held.fk.contains { plan.doomed.contains(MID(kind: $0.key.target, row: $0.value)) }
            }
            if goneHolder { return note("\(name): left out, a held object deleted elsewhere names a row it deletes") }
            for (id, held) in model.held.sorted(by: { $0.key < $1.key }) where !plan.doomed.contains(id) {
                guard held.phase == .inserted || (held.phase == .managed && !held.fkChanged.isEmpty) else { continue }
                for (link, target) in held.fk.sorted(by: { $0.key.rawValue < $1.key.rawValue })
                where (held.phase == .inserted || held.fkChanged.contains(link)) && (plan.doomed.contains(MID(kind: link.target, row: target)) || truncatesGone(link, target)) {
                    strays.append((id, link))
                }
            }
            if strays.contains(where: { $0.1.rule == .noAction }) { return note("\(name): left out, an unsaved .noAction reference to a row it deletes") }
            // A cascade taking a new book's last note (a new note made the
            // lead of a book this deletes): whether a new book's list
            // "changed" is not settled (`ReferenceModel.emptiesNewBook`;
            // seed 20954).
            if model.emptiesNewBook(Set(strays.filter { $0.1.rule == .cascade }.map(\.0))) {
                return note("\(name): left out, its cascade would empty a new book")
            }
        }
        var error = plan.error
        if error == nil, strays.contains(where: { $0.1.rule == .deny }) { error = .validationFailed }
        coverage.ops.insert(elsewhere ? (truncate ? .writeTruncateAll : .writeDeleteAll) : (truncate ? .truncateAll : .deleteAll))
        if plan.doomed.contains(where: { $0.kind != kind }) || !plan.nullified.isEmpty { noteSetBasedRules(plan) }
        var failure: LiteRecordError?
        var count = 0
        do {
            if elsewhere {
                count = try otherWriter { context in try ModelAccess.deleteAll(kind, truncate: truncate, in: context) }
            } else {
                count = try ModelAccess.deleteAll(kind, truncate: truncate, in: context)
            }
        } catch let error as LiteRecordError {
            failure = error
        }
        note(
            "\(elsewhere ? "write{" : "")\(name)\(elsewhere ? "}" : "") → \(failure.map { "\($0.kind): \($0.message.prefix(120))" } ?? "\(count) rows"), the model: \(error.map { "\($0)" } ?? "deletes \(plan.doomed.sorted()), clears \(plan.nullified.keys.sorted())")"
        )
        if let error {
            guard failure?.kind == error else {
                throw mismatch(
                    "\(truncate ? "truncateAll" : "deleteAll") outcome: \(error), got \(failure.map { "\($0.kind)" } ?? "success")",
                    failure?.message ?? "\(name) deleted \(count) rows")
            }
            return try compareStore()
        }
        if let failure { throw mismatch("\(truncate ? "truncateAll" : "deleteAll") outcome: success, got \(failure.kind)", failure.message) }
        let deletedOfKind = plan.doomed.count { $0.kind == kind }
        guard count == deletedOfKind else {
            throw mismatch("deleteAll", "\(name) deleted \(count) rows; the model \(deletedOfKind)")
        }
        model.applyStoreDeletion(plan)
        if !elsewhere {
            for id in plan.doomed { model.held[id] = nil }
            for (id, links) in plan.nullified {
                guard let held = model.held[id], held.phase == .managed else { continue }
                model.held[id]?.version += links.count
                for link in links where !held.fkChanged.contains(link) { model.held[id]?.fk[link] = nil }
            }
            for (id, link) in strays where link.rule == .nullify { model.held[id]?.fk[link] = nil }
            for (id, link) in strays where link.rule == .cascade { model.delete(id) }
        }
        if !plan.doomed.isEmpty { expectedEvents.append(MEvent(updated: Set(plan.nullified.keys), deleted: plan.doomed)) }
        try compareStore()
    }

    /// The rules a set-based deletion meets, for the coverage line.
    func noteSetBasedRules(_ plan: MStoreDeletion) {
        for id in plan.doomed where id.kind == .tag && model.store.rows[id]?.fk[.tagParent] != nil { coverage.features.insert(.selfReferential) }
        for (_, links) in plan.nullified where links.contains(where: \.isOneToOne) { coverage.features.insert(.oneToOne) }
    }
}

extension ModelAccess {
    /// `MTNote.updateAll` of `field` (count, rank, code, summary) to its
    /// value in `values`, in the notes with `text` (all without it).
    static func updateAll(_ field: MField, _ values: MValues, text: String?, in context: RecordContext) throws -> Int {
        let predicate: Predicate<MTNote>
        if let text {
            predicate = #Predicate { $0.text == text }
        } else {
            predicate = #Predicate { $0.text != "~" }
        }
        switch field {
        case .count: return try MTNote.updateAll(matching: predicate, set: \.count, to: values.count, in: context)
        case .rank: return try MTNote.updateAll(matching: predicate, set: \.rank, to: values.rank, in: context)
        case .code: return try MTNote.updateAll(matching: predicate, set: \.code, to: values.code, in: context)
        default: return try MTNote.updateAll(matching: predicate, set: \.summary, to: values.summary, in: context)
        }
    }
}

extension MValues {
    /// Takes `field` from `other`.
    mutating func set(_ field: MField, from other: MValues) { self = taking(field, from: other) }
}

extension ModelRunner {
    /// Whether `object`'s to-ones (read from their slots, loading nothing)
    /// are the stored `row`'s: with `shows`, whether a save read the row
    /// again — a to-one another writer cleared tells the two apart where the
    /// text and values cannot.
    func showsLinks(_ id: MID, _ object: any Entity, _ row: MRow) -> Bool {
        let relationships = type(of: object).relationships
        for link in MLink.holding(id.kind) {
            let name = link.description.split(separator: ".").last.map(String.init) ?? ""
            guard let index = relationships.firstIndex(where: { $0.name == name }) else { continue }
            let got: Int64?
            switch RelationGraph.slot(object, index) {
            case .fault(let rowID): got = rowID
            case .toOne(let target): got = target.flatMap { self.id(of: $0)?.row }
            case .unloaded, .toMany: continue
            }
            if got != row.fk[link] { return false }
        }
        return true
    }
}
