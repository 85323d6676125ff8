import Foundation
import LiteRecord
import Vapor
import VaporLiteRecord

/// The entity the sample service stores: a product with a unique SKU and a
/// stock that never goes below zero.
@Entity
final class Product {
    @Attribute(.unique) var sku = ""
    var name = ""
    var quantity: Int64 = 0

    init() {}
}

/// A small inventory service built from the integration alone, as a second
/// service would build it: the stack in the application's lifecycle, store
/// errors as problem details, and every route's preconditions evaluated by
/// the one call.
///
/// | route | answers |
/// | --- | --- |
/// | `GET /health` | 200 with the product count, read from `req.liteRecord.stack` |
/// | `GET /products` | 200, the products by SKU |
/// | `POST /products` | 201 with `Location` and `ETag`; 400 for a body it cannot read or a negative quantity; 409 for a SKU taken |
/// | `GET`, `HEAD /products/:id` | 200 with `ETag`; 304; 404; 412 for a stale `If-Match` |
/// | `PUT /products/:id` | 200 with the new `ETag`; 428 without `If-Match`; 412; 404; 409 |
/// | `POST /products/:id/withdrawals` | 200; 409 when the stock would go below zero; 428; 412; 404 |
/// | `DELETE /products/:id` | 204; 428; 412; 404 |
/// | another method on these paths | 405 with `Allow`; any other path: 404 |
enum Inventory {
    struct ProductInput: Content {
        var sku: String
        var name: String
        var quantity: Int64
    }

    struct ProductOutput: Content, Equatable {
        var id: Int64
        var sku: String
        var name: String
        var quantity: Int64

        init(_ product: Product) {
            id = product.recordID?.rowID ?? 0
            sku = product.sku
            name = product.name
            quantity = product.quantity
        }
    }

    struct Withdrawal: Content {
        var quantity: Int64
    }

    static func configure(_ app: Application, stack: RecordStack) throws {
        app.liteRecord.use(stack)
        app.middleware.use(StoreErrorMiddleware())
        app.middleware.use(UnmatchedRouteMiddleware())   // 405 with Allow for a known path, 404 otherwise

        app.get("health") { req async throws -> String in
            let count = try await req.liteRecord.stack.read { try Product.count(in: $0) }
            return "ok, \(count) products"
        }

        let products = app.grouped("products")
        products.get { req async throws -> [ProductOutput] in
            try await req.liteRecord.stack.read { store in
                try Product.findAll(sortedBy: "sku", ascending: true, in: store).map(ProductOutput.init)
            }
        }

        products.post { req async throws -> Response in
            let input = try validated(req)
            let (output, tag) = try await req.liteRecord.stack.write { store in
                let product = Product()
                store.insert(product)
                product.sku = input.sku
                product.name = input.name
                product.quantity = input.quantity
                try store.save()
                return (ProductOutput(product), EntityTag(for: product))
            }
            let response = try Response.tagged(output, tag: tag, status: .created)
            response.headers.replaceOrAdd(name: .location, value: "/products/\(output.id)")
            return response
        }

        products.get(":id") { req async throws -> Response in
            let id = try rowID(req)
            let (output, tag) = try await req.liteRecord.stack.read { store in
                guard let product = try Product.find(rowID: id, in: store), let tag = EntityTag(for: product) else {
                    throw ProblemDetails(.notFound, detail: "no Product \(id)")
                }
                return (ProductOutput(product), tag)
            }
            return try req.taggedResponse(output, tag: tag)
        }

        products.put(":id") { req async throws -> Response in
            let id = try rowID(req)
            let preconditions = try Preconditions(req)
            try preconditions.requireIfMatch()
            let input = try validated(req)
            return try await answer(req, changing: id, preconditions) { product in
                product.sku = input.sku
                product.name = input.name
                product.quantity = input.quantity
            }
        }

        products.post(":id", "withdrawals") { req async throws -> Response in
            let id = try rowID(req)
            let preconditions = try Preconditions(req)
            try preconditions.requireIfMatch()
            let withdrawal = try req.content.decode(Withdrawal.self)
            guard withdrawal.quantity > 0 else { throw ProblemDetails(.badRequest, detail: "quantity must be positive") }
            return try await answer(req, changing: id, preconditions) { product in
                guard product.quantity >= withdrawal.quantity else {
                    throw ProblemDetails(.conflict, type: "tag:example.com,2026:out-of-stock",
                                         detail: "only \(product.quantity) of \(product.sku) in stock")
                }
                product.quantity -= withdrawal.quantity
            }
        }

        products.delete(":id") { req async throws -> HTTPStatus in
            let id = try rowID(req)
            let preconditions = try Preconditions(req)
            try preconditions.requireIfMatch()
            try await req.liteRecord.stack.write { store in
                store.delete(try preconditions.existing(Product.self, rowID: id, in: store))
            }
            return .noContent
        }
    }

    /// A change to one product inside `write {}`, preconditions checked
    /// there, answered with what `GET` serves and its new tag.
    static func answer(_ req: Request, changing id: Int64, _ preconditions: Preconditions,
                       _ change: @escaping @Sendable (Product) throws -> Void) async throws -> Response {
        let (output, tag) = try await req.liteRecord.stack.write { store in
            let product = try preconditions.existing(Product.self, rowID: id, in: store)
            try change(product)
            try store.save()
            return (ProductOutput(product), EntityTag(for: product))
        }
        return try Response.tagged(output, tag: tag)
    }

    static func rowID(_ req: Request) throws -> Int64 {
        guard let id = req.parameters.get("id", as: Int64.self) else {
            throw ProblemDetails(.notFound, detail: "no product \(req.parameters.get("id") ?? "")")
        }
        return id
    }

    static func validated(_ req: Request) throws -> ProductInput {
        let input = try req.content.decode(ProductInput.self)
        guard !input.sku.isEmpty else { throw ProblemDetails(.badRequest, detail: "sku must not be empty") }
        guard input.quantity >= 0 else { throw ProblemDetails(.badRequest, detail: "quantity must not be negative") }
        return input
    }
}
