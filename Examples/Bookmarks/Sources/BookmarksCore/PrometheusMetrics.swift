public import CoreMetrics
import Foundation
import Synchronization

/// A swift-metrics backend that keeps every metric in memory and prints them
/// in Prometheus's text format for `GET /metrics`: counters as counters,
/// recorders and meters as gauges (the last value), timers as histograms in
/// seconds. Hummingbird's `MetricsMiddleware` then needs nothing else.
///
/// ```swift
/// let metrics = PrometheusMetrics()
/// MetricsSystem.bootstrap(metrics)        // once per process
/// print(metrics.render())
/// ```
///
/// A service that already runs swift-prometheus or an OpenTelemetry exporter
/// bootstraps that instead; the middleware is the same.
public final class PrometheusMetrics: MetricsFactory, Sendable {
    /// Histogram bucket bounds of every timer, in seconds.
    public static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Key: Hashable {
        var name: String
        var labels: String
    }

    private let metrics = Mutex<[Key: Metric]>([:])

    /// An empty registry.
    public init() {}

    /// Every metric, in Prometheus's text exposition format, sorted by name.
    ///
    /// ```swift
    /// let text = metrics.render()   // "# TYPE hb_requests counter\nhb_requests{…} 3\n…"
    /// ```
    public func render() -> String {
        let all = metrics.withLock { $0 }
        var text = ""
        var typed = Set<String>()
        for (key, metric) in all.sorted(by: { ($0.key.name, $0.key.labels) < ($1.key.name, $1.key.labels) }) {
            if typed.insert(key.name).inserted { text += "# TYPE \(key.name) \(metric.type)\n" }
            text += metric.render(name: key.name, labels: key.labels)
        }
        return text
    }

    private func metric(_ label: String, _ dimensions: [(String, String)], make: () -> Metric) -> Metric {
        let key = Key(name: Self.name(label), labels: Self.labels(dimensions))
        return metrics.withLock { metrics in
            if let existing = metrics[key] { return existing }
            let created = make()
            metrics[key] = created
            return created
        }
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        metric(label, dimensions) { Metric(type: "counter") }
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        metric(label, dimensions) { Metric(type: "gauge") }
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        metric(label, dimensions) { Metric(type: "histogram") }
    }

    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}

    /// `hb.requests` → `hb_requests`: Prometheus names take letters, digits
    /// and underscores.
    static func name(_ label: String) -> String {
        String(label.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// `{method="GET",status="200"}`, sorted, values escaped.
    static func labels(_ dimensions: [(String, String)]) -> String {
        guard !dimensions.isEmpty else { return "" }
        let pairs = dimensions.sorted { $0.0 < $1.0 }.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            return "\(name(key))=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }
}

/// One metric: a counter, a gauge or a histogram, by `type`.
private final class Metric: CounterHandler, RecorderHandler, TimerHandler, Sendable {
    struct Values {
        var value: Double = 0
        var buckets = [Int](repeating: 0, count: PrometheusMetrics.buckets.count)
        var count = 0
        var sum: Double = 0
    }

    let type: String
    private let values = Mutex(Values())

    init(type: String) { self.type = type }

    func increment(by amount: Int64) { values.withLock { $0.value += Double(amount) } }
    func reset() { values.withLock { $0 = Values() } }
    func record(_ value: Int64) { record(Double(value)) }
    func record(_ value: Double) { values.withLock { $0.value = value } }

    func recordNanoseconds(_ duration: Int64) {
        let seconds = Double(duration) / 1e9
        values.withLock { values in
            values.count += 1
            values.sum += seconds
            for (index, bound) in PrometheusMetrics.buckets.enumerated() where seconds <= bound {
                values.buckets[index] += 1
            }
        }
    }

    func render(name: String, labels: String) -> String {
        let values = values.withLock { $0 }
        guard type == "histogram" else { return "\(name)\(labels) \(Self.number(values.value))\n" }
        var text = ""
        for (index, bound) in PrometheusMetrics.buckets.enumerated() {
            text += "\(name)_bucket\(Self.adding("le=\"\(Self.number(bound))\"", to: labels)) \(values.buckets[index])\n"
        }
        text += "\(name)_bucket\(Self.adding("le=\"+Inf\"", to: labels)) \(values.count)\n"
        text += "\(name)_sum\(labels) \(Self.number(values.sum))\n"
        text += "\(name)_count\(labels) \(values.count)\n"
        return text
    }

    static func adding(_ label: String, to labels: String) -> String {
        labels.isEmpty ? "{\(label)}" : String(labels.dropLast()) + ",\(label)}"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
