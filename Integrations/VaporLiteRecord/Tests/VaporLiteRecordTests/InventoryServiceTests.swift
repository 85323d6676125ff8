import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// Every route of the sample service (Inventory.swift), through Vapor's
/// testing API: the integration alone carries a second service's
/// conditional writes, 404, 409, 412 and 428.
@Suite(.timeLimit(.minutes(1))) struct InventoryServiceTests {
    @Test func healthReadsTheStack() async throws {
        try await withInventory { client, _ in
            let health = try await client.send(.GET, "/health")
            #expect(health.status == .ok)
            #expect(health.text == "ok, 1 products")
        }
    }

    @Test func theListIsInSKUOrder() async throws {
        try await withInventory { client, _ in
            #expect(try await client.send(.POST, "/products", json: #"{"sku":"0-9","name":"Nail","quantity":100}"#).status == .created)
            let list = try await client.send(.GET, "/products")
            #expect(list.status == .ok)
            let products = try JSONDecoder().decode([Inventory.ProductOutput].self, from: Data(list.body.readableBytesView))
            #expect(products.map(\.sku) == ["0-9", "A-1"])
        }
    }

    @Test func createAnswers201WithLocationAndTheTagGETServes() async throws {
        try await withInventory { client, _ in
            let created = try await client.send(.POST, "/products", json: #"{"sku":"B-2","name":"Bucket","quantity":5}"#)
            #expect(created.status == .created)
            let location = try #require(created.headers.first(name: .location))
            #expect(location == "/products/2")
            let read = try await client.send(.GET, location)
            #expect(read.status == .ok)
            #expect(read.eTag == created.eTag)
            #expect(read.body == created.body)
        }
    }

    @Test func createRefusesATakenSKUWith409NamingTheAttribute() async throws {
        try await withInventory { client, _ in
            let taken = try await client.send(.POST, "/products", json: #"{"sku":"A-1","name":"Other","quantity":1}"#)
            #expect(taken.status == .conflict)
            let problem = try Problem(taken)
            #expect(problem.type == StoreProblem.uniqueViolation)
            #expect(problem.detail.contains("Product.sku"))
            #expect(problem.error.message == problem.detail)
        }
    }

    @Test func createRefusesABodyItCannotReadOrANegativeQuantity() async throws {
        try await withInventory { client, _ in
            #expect(try await client.send(.POST, "/products", json: #"{"sku":"C"}"#).status == .badRequest)
            let negative = try await client.send(.POST, "/products", json: #"{"sku":"C","name":"c","quantity":-1}"#)
            #expect(negative.status == .badRequest)
            #expect(try Problem(negative).detail == "quantity must not be negative")
        }
    }

    @Test func readAnswersTheTag304412AndHEAD() async throws {
        try await withInventory { client, _ in
            let read = try await client.send(.GET, "/products/1")
            #expect(read.status == .ok)
            let tag = try #require(read.eTag)
            #expect(tag.hasPrefix(#""1."#))
            #expect(read.text.contains("Anvil"))
            let notModified = try await client.send(.GET, "/products/1", headers: ["If-None-Match": tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.eTag == tag)
            #expect(notModified.body.readableBytes == 0)
            // A stale If-Match on a GET is 412, not 200 (RFC 9110 §13.1.1).
            let stale = try await client.send(.GET, "/products/1", headers: ["If-Match": #""1.0""#])
            #expect(stale.status == .preconditionFailed)
            #expect(stale.eTag == tag)
            let head = try await client.send(.HEAD, "/products/1")
            #expect(head.status == .ok)
            #expect(head.eTag == tag)
        }
    }

    @Test func readOfAMissingProductIs404() async throws {
        try await withInventory { client, _ in
            let missing = try await client.send(.GET, "/products/9")
            #expect(missing.status == .notFound)
            #expect(try Problem(missing).detail == "no Product 9")
            #expect(try await client.send(.GET, "/products/nine").status == .notFound)
        }
    }

    @Test func replaceNeedsAMatchingIfMatch() async throws {
        try await withInventory { client, _ in
            let body = #"{"sku":"A-1","name":"Anvil, large","quantity":2}"#
            let tag = try #require(try await client.send(.GET, "/products/1").eTag)
            #expect(try await client.send(.PUT, "/products/1", json: body).status == .preconditionRequired)
            #expect(try await client.send(.PUT, "/products/1", headers: ["If-Match": #""1.0""#], json: body).status == .preconditionFailed)
            #expect(try await client.send(.PUT, "/products/9", headers: ["If-Match": "*"], json: body).status == .notFound)
            // If-None-Match naming the current tag refuses a write (§13.1.2).
            #expect(try await client.send(.PUT, "/products/1", headers: ["If-Match": tag, "If-None-Match": tag], json: body).status
                == .preconditionFailed)
            let replaced = try await client.send(.PUT, "/products/1", headers: ["If-Match": tag], json: body)
            #expect(replaced.status == .ok)
            let newTag = try #require(replaced.eTag)
            #expect(newTag != tag)
            let read = try await client.send(.GET, "/products/1")
            #expect(read.eTag == newTag)
            #expect(read.body == replaced.body)
            // The old tag is stale now.
            #expect(try await client.send(.PUT, "/products/1", headers: ["If-Match": tag], json: body).status == .preconditionFailed)
        }
    }

    @Test func replaceWithATakenSKUIs409() async throws {
        try await withInventory { client, _ in
            let created = try await client.send(.POST, "/products", json: #"{"sku":"B-2","name":"Bucket","quantity":5}"#)
            let tag = try #require(created.eTag)
            let taken = try await client.send(.PUT, "/products/2", headers: ["If-Match": tag], json: #"{"sku":"A-1","name":"Bucket","quantity":5}"#)
            #expect(taken.status == .conflict)
            #expect(try Problem(taken).type == StoreProblem.uniqueViolation)
        }
    }

    @Test func withdrawalsNeverTakeTheStockBelowZero() async throws {
        try await withInventory { client, stack in
            let tag = try #require(try await client.send(.GET, "/products/1").eTag)
            let path = "/products/1/withdrawals"
            #expect(try await client.send(.POST, path, json: #"{"quantity":1}"#).status == .preconditionRequired)
            #expect(try await client.send(.POST, "/products/9/withdrawals", headers: ["If-Match": "*"], json: #"{"quantity":1}"#).status
                == .notFound)
            let tooMany = try await client.send(.POST, path, headers: ["If-Match": tag], json: #"{"quantity":4}"#)
            #expect(tooMany.status == .conflict)
            #expect(try Problem(tooMany).type == "tag:example.com,2026:out-of-stock")
            let taken = try await client.send(.POST, path, headers: ["If-Match": tag], json: #"{"quantity":3}"#)
            #expect(taken.status == .ok)
            #expect(try await client.send(.POST, path, headers: ["If-Match": tag], json: #"{"quantity":1}"#).status == .preconditionFailed)
            let left = try await stack.read { store in try Product.find(rowID: 1, in: store)?.quantity }
            #expect(left == 0)
        }
    }

    @Test func deleteNeedsAMatchingIfMatch() async throws {
        try await withInventory { client, stack in
            let tag = try #require(try await client.send(.GET, "/products/1").eTag)
            #expect(try await client.send(.DELETE, "/products/1").status == .preconditionRequired)
            #expect(try await client.send(.DELETE, "/products/1", headers: ["If-Match": #""1.0""#]).status == .preconditionFailed)
            // If-None-Match: * on an existing resource refuses the delete (§13.1.2).
            #expect(try await client.send(.DELETE, "/products/1", headers: ["If-Match": tag, "If-None-Match": "*"]).status
                == .preconditionFailed)
            #expect(try await client.send(.DELETE, "/products/1", headers: ["If-Match": tag]).status == .noContent)
            #expect(try await client.send(.DELETE, "/products/1", headers: ["If-Match": tag]).status == .notFound)
            #expect(try await stack.read { try Product.count(in: $0) } == 0)
        }
    }
}
