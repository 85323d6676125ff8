import Testing

extension Tag {
    /// Suites whose tests run work on several threads or processes at once:
    /// `make tsan` runs exactly these under ThreadSanitizer
    /// (`scripts/test-suites.sh --tag threads` derives its filter).
    @Tag static var threads: Self
}
