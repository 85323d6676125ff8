public import HummingbirdLiteRecord
import LiteRecord

/// The hub every `GET /events` client shares: HummingbirdLiteRecord's
/// `ChangeEventHub` (one read per commit whatever the number of clients,
/// the client caps, heartbeats, the end on close), reading the bookmarks'
/// ``BookmarkSummary`` after each commit that touches bookmarks.
///
/// ```swift
/// let hub = EventHub(store: store, maximumClients: 1_000)
/// router.get("/events") { request, _ in try hub.response(to: request) }
/// ```
public typealias EventHub = ChangeEventHub<BookmarkSummary>

extension ChangeEventHub where Value == BookmarkSummary {
    /// A hub over `store`'s bookmarks: its first event to a client is
    /// `snapshot`, the later ones `bookmarks`, each with the count and the
    /// newest bookmark's id (`{"count":3,"newestID":7}`) and the update's
    /// number as `id:`.
    ///
    /// ```swift
    /// let hub = EventHub(store: store, maximumClients: 100, heartbeat: .seconds(15))
    /// ```
    public convenience init(store: BookmarkStore, maximumClients: Int = 1_000, maximumClientsPerAddress: Int = 16,
                            heartbeat: Duration = .seconds(15)) {
        self.init(stack: store.stack, touching: [Bookmark.self], maximumClients: maximumClients,
                  maximumClientsPerAddress: maximumClientsPerAddress, heartbeat: heartbeat,
                  read: BookmarkStore.summary(in:), event: EventHub.bookmarksEvent)
    }

    /// The event for `update`, the `sent`-th to its client.
    @Sendable static func bookmarksEvent(_ update: Update, _ sent: Int) -> ServerSentEvent {
        let newest = update.value.newestID.map(String.init) ?? "null"
        return ServerSentEvent(id: "\(update.sequence)", event: sent == 0 ? "snapshot" : "bookmarks",
                               data: "{\"count\":\(update.value.count),\"newestID\":\(newest)}")
    }
}
