/// One event of a `text/event-stream` answer (Server-Sent Events, the HTML
/// standard's §9.2): an optional `id:` and `event:` name, and the data, one
/// `data:` line per line of it.
///
/// ```swift
/// let event = ServerSentEvent(id: "7", event: "todos", data: #"{"count":3}"#)
/// event.text   // "id: 7\nevent: todos\ndata: {\"count\":3}\n\n"
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's id, which a reconnecting browser sends as `Last-Event-ID`;
    /// `nil`: no `id:` line.
    public var id: String?
    /// The event's name (`addEventListener(name, …)`); `nil`: a `message`.
    public var event: String?
    /// The payload; each of its lines becomes a `data:` line.
    public var data: String

    /// An event with `data`, and optionally an `id` and a name.
    ///
    /// ```swift
    /// let event = ServerSentEvent(event: "snapshot", data: "{}")
    /// ```
    public init(id: String? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// The event as sent: its fields, each on a line, and a blank line.
    /// Line breaks in `id` and `event`, which would start other fields, are
    /// dropped.
    public var text: String {
        func field(_ text: String) -> String { text.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" } }
        var text = ""
        if let id { text += "id: \(field(id))\n" }
        if let event { text += "event: \(field(event))\n" }
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text += "data: \(line)\n"
        }
        return text + "\n"
    }
}
