// Entity tags, conditional requests over header strings and the store-error
// table are LiteRecordHTTP's, shared with the other integrations: a route
// that imports VaporLiteRecord names `EntityTag` without a second import.
@_exported import LiteRecordHTTP
