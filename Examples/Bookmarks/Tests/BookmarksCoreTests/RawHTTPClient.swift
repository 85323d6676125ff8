import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `SOCK_STREAM` as `socket(2)` takes it: Glibc imports it as an enum case,
/// Darwin as an `Int32`.
#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif

/// A plain TCP connection to 127.0.0.1 that writes bytes and reads what
/// arrives, for tests that must control timing an HTTP client hides: send
/// part of a request, read an event stream as it comes. Every blocking
/// socket call runs on a dispatch queue, not on the cooperative pool, and
/// times out after `timeout` seconds.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "RawConnection")
    /// Everything read so far.
    private(set) var received = Data()

    init(port: Int, timeout: Int = 30) throws {
        fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw RawError("socket() failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw RawError("connect to 127.0.0.1:\(port) failed (errno \(errno))")
        }
    }

    deinit { close(fd) }

    /// Writes all of `data`.
    func send(_ data: Data) async throws {
        try await run {
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let written = write(self.fd, buffer.baseAddress! + offset, buffer.count - offset)
                    guard written > 0 else { throw RawError("write failed (errno \(errno))") }
                    offset += written
                }
            }
        }
    }

    func send(_ text: String) async throws { try await send(Data(text.utf8)) }

    /// Reads until `predicate` holds for everything received, or the peer
    /// closes; returns everything received.
    @discardableResult
    func read(until predicate: @escaping @Sendable (String) -> Bool = { _ in false }) async throws -> String {
        try await run {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !predicate(String(decoding: self.received, as: UTF8.self)) {
                let count = recv(self.fd, &chunk, chunk.count, 0)
                if count == 0 { break }
                guard count > 0 else { throw RawError("read timed out or failed (errno \(errno)); got: \(String(decoding: self.received, as: UTF8.self))") }
                self.received.append(contentsOf: chunk[0..<count])
            }
            return String(decoding: self.received, as: UTF8.self)
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

struct RawError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
