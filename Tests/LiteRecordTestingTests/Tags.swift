import Testing

extension Tag {
    /// Suites whose tests run work on several threads at once: `make tsan`
    /// runs exactly these under ThreadSanitizer (`scripts/test-suites.sh --tag
    /// threads` derives its filter from every test target).
    @Tag static var threads: Self
}
