/// The service's OpenAPI 3.1 document, `GET /openapi.json`: the routes,
/// their parameters, bodies and answers, as the README describes them, for
/// clients generated from it (swift-openapi-generator) and for tools that
/// test a service from it. The same bytes as the example's `openapi.json`
/// (`OpenAPIDocumentTests` compares them, and every route of the router
/// with the document's paths): edit that file, then copy it here.
public enum OpenAPIDocument {
    /// The document, JSON.
    public static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Bookmarks",
    "version": "1.0.0",
    "description": "The Bookmarks example service of LiteRecord (Examples/Bookmarks/README.md). Errors are RFC 9457 problem details. Writes need `Authorization: Bearer` when the server has tokens; the feeds need one with read tokens."
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer"
      }
    },
    "parameters": {
      "IfMatch": {
        "name": "If-Match",
        "in": "header",
        "schema": {
          "anyOf": [
            {
              "const": "*"
            },
            {
              "type": "string",
              "pattern": "^([ \\t]*\\*[ \\t]*|[ \\t,]*(W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*(,[ \\t,]*((W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*)?)*)$"
            }
          ]
        },
        "description": "`*` or a list of strong entity tags"
      },
      "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "schema": {
          "anyOf": [
            {
              "const": "*"
            },
            {
              "type": "string",
              "pattern": "^([ \\t]*\\*[ \\t]*|[ \\t,]*(W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*(,[ \\t,]*((W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*)?)*)$"
            }
          ]
        },
        "description": "`*` or a list of entity tags (weak comparison)"
      },
      "IfMatchRequired": {
        "name": "If-Match",
        "in": "header",
        "required": true,
        "schema": {
          "anyOf": [
            {
              "const": "*"
            },
            {
              "type": "string",
              "pattern": "^([ \\t]*\\*[ \\t]*|[ \\t,]*(W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*(,[ \\t,]*((W/)?\"[!#-~\\x80-\\xff]*\"[ \\t]*)?)*)$"
            }
          ]
        },
        "description": "the ETag of what the request changes (`*`: whatever is there); 428 without"
      }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": [
          "detail",
          "error",
          "status",
          "title",
          "type"
        ],
        "properties": {
          "detail": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "title": {
            "type": "string"
          },
          "type": {
            "type": "string"
          },
          "error": {
            "type": "object",
            "required": [
              "message"
            ],
            "properties": {
              "message": {
                "type": "string"
              }
            }
          },
          "next": {
            "type": [
              "string",
              "null"
            ],
            "description": "410 of /changes: the token to continue from"
          }
        }
      },
      "Bookmark": {
        "type": "object",
        "required": [
          "id",
          "url",
          "title",
          "visits",
          "createdAt",
          "tags",
          "version"
        ],
        "properties": {
          "id": {
            "type": "integer",
            "format": "int64"
          },
          "url": {
            "type": "string",
            "format": "uri"
          },
          "title": {
            "type": "string"
          },
          "note": {
            "type": [
              "string",
              "null"
            ]
          },
          "visits": {
            "type": "integer",
            "format": "int64"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "folder": {
            "type": [
              "string",
              "null"
            ]
          },
          "tags": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "version": {
            "type": "integer",
            "format": "int64"
          }
        }
      },
      "BookmarkInput": {
        "type": "object",
        "required": [
          "url",
          "title",
          "folder"
        ],
        "additionalProperties": false,
        "properties": {
          "url": {
            "type": "string",
            "format": "uri",
            "description": "an absolute http(s) URI by RFC 3986's syntax"
          },
          "title": {
            "type": "string",
            "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
          },
          "folder": {
            "type": "string",
            "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
          },
          "tags": {
            "type": "array",
            "maxItems": 32,
            "items": {
              "type": "string",
              "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
            }
          },
          "note": {
            "type": [
              "string",
              "null"
            ]
          },
          "visits": {
            "type": "integer",
            "format": "int64",
            "minimum": 0
          }
        }
      },
      "BookmarkPatch": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "url": {
            "type": "string",
            "format": "uri"
          },
          "title": {
            "type": "string",
            "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
          },
          "folder": {
            "type": "string",
            "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
          },
          "tags": {
            "type": "array",
            "maxItems": 32,
            "items": {
              "type": "string",
              "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
            }
          },
          "note": {
            "type": [
              "string",
              "null"
            ]
          },
          "visits": {
            "type": "integer",
            "format": "int64",
            "minimum": 0
          }
        }
      },
      "ImportElement": {
        "type": "object",
        "description": "a bookmark as POST takes it, with the same rules; the folder and each tag may also be an object naming it",
        "required": [
          "url",
          "title",
          "folder"
        ],
        "additionalProperties": false,
        "properties": {
          "url": {
            "type": "string",
            "format": "uri",
            "description": "an absolute http(s) URI by RFC 3986's syntax"
          },
          "title": {
            "type": "string",
            "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
          },
          "note": {
            "type": [
              "string",
              "null"
            ]
          },
          "visits": {
            "type": "integer",
            "format": "int64",
            "minimum": 0
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "folder": {
            "oneOf": [
              {
                "type": "string",
                "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
              },
              {
                "type": "object",
                "required": [
                  "name"
                ],
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string",
                    "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
                  }
                }
              }
            ]
          },
          "tags": {
            "type": "array",
            "maxItems": 32,
            "items": {
              "oneOf": [
                {
                  "type": "string",
                  "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
                },
                {
                  "type": "object",
                  "required": [
                    "label"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "label": {
                      "type": "string",
                      "pattern": "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "ImportCounts": {
        "type": "object",
        "required": [
          "inserted",
          "updated"
        ],
        "properties": {
          "inserted": {
            "type": "integer"
          },
          "updated": {
            "type": "integer"
          }
        }
      },
      "ChangesPage": {
        "type": "object",
        "required": [
          "next",
          "transactions"
        ],
        "properties": {
          "next": {
            "type": [
              "string",
              "null"
            ]
          },
          "transactions": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "token",
                "date",
                "changes"
              ],
              "properties": {
                "token": {
                  "type": "string"
                },
                "date": {
                  "type": "string",
                  "format": "date-time"
                },
                "author": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "changes": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": [
                      "entity",
                      "id",
                      "kind"
                    ],
                    "properties": {
                      "entity": {
                        "type": "string"
                      },
                      "id": {
                        "type": "integer"
                      },
                      "kind": {
                        "type": "string",
                        "enum": [
                          "insert",
                          "update",
                          "delete"
                        ]
                      },
                      "updatedAttributes": {
                        "type": "array",
                        "items": {
                          "type": "string"
                        }
                      },
                      "tombstone": {
                        "type": "object"
                      }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "Health": {
        "type": "object",
        "required": [
          "status",
          "bookmarks"
        ],
        "properties": {
          "status": {
            "type": "string"
          },
          "bookmarks": {
            "type": "integer"
          },
          "replica": {
            "type": "object"
          }
        }
      }
    }
  },
  "paths": {
    "/bookmarks": {
      "get": {
        "operationId": "listBookmarks",
        "summary": "A page of bookmarks; Link names the next",
        "parameters": [
          {
            "name": "folder",
            "in": "query",
            "schema": {
              "type": "string"
            },
            "allowEmptyValue": true
          },
          {
            "name": "tag",
            "in": "query",
            "schema": {
              "type": "string"
            },
            "allowEmptyValue": true
          },
          {
            "name": "q",
            "in": "query",
            "schema": {
              "type": "string",
              "maxLength": 200
            },
            "allowEmptyValue": true
          },
          {
            "name": "sort",
            "in": "query",
            "schema": {
              "type": "string",
              "enum": [
                "createdAt",
                "-createdAt",
                "title",
                "-title",
                "visits",
                "-visits",
                "id",
                "-id"
              ]
            },
            "allowEmptyValue": true
          },
          {
            "name": "limit",
            "in": "query",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 500
            },
            "allowEmptyValue": true
          },
          {
            "name": "offset",
            "in": "query",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 100000
            },
            "allowEmptyValue": true
          },
          {
            "name": "cursor",
            "in": "query",
            "schema": {
              "type": "string",
              "pattern": "^[A-Za-z0-9_-]+$"
            },
            "description": "from the previous page's Link header",
            "allowEmptyValue": true
          },
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "responses": {
          "200": {
            "description": "the page",
            "headers": {
              "ETag": {
                "description": "strong entity tag",
                "schema": {
                  "type": "string"
                }
              },
              "Link": {
                "description": "RFC 8288, rel=\"next\" when the page is full",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Bookmark"
                  }
                }
              }
            }
          },
          "304": {
            "description": "If-None-Match names the page"
          },
          "400": {
            "description": "a bad parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match names another page",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "post": {
        "operationId": "createBookmark",
        "summary": "Create a bookmark",
        "security": [
          {
            "bearer": []
          },
          {}
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/BookmarkInput"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "created",
            "headers": {
              "ETag": {
                "description": "strong entity tag",
                "schema": {
                  "type": "string"
                }
              },
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Bookmark"
                }
              }
            }
          },
          "400": {
            "description": "a bad field",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "the url is taken",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "a false precondition on the collection",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "the body is over 64 KiB",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/bookmarks/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "integer",
            "format": "int64",
            "minimum": 1
          }
        }
      ],
      "get": {
        "operationId": "getBookmark",
        "summary": "One bookmark",
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "responses": {
          "200": {
            "description": "the bookmark",
            "headers": {
              "ETag": {
                "description": "strong entity tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Bookmark"
                }
              }
            }
          },
          "304": {
            "description": "not modified"
          },
          "400": {
            "description": "a bad id or header",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "no such bookmark",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match names another version",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "put": {
        "operationId": "replaceBookmark",
        "summary": "Replace a bookmark",
        "security": [
          {
            "bearer": []
          },
          {}
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatchRequired"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/BookmarkInput"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "the bookmark as GET serves it, without ETag",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Bookmark"
                }
              }
            }
          },
          "400": {
            "description": "a bad field",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "no such bookmark",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "the url is taken",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "a false precondition",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "the body is over 64 KiB",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "428": {
            "description": "no If-Match",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "patch": {
        "operationId": "patchBookmark",
        "summary": "Change the fields sent",
        "security": [
          {
            "bearer": []
          },
          {}
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatchRequired"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/BookmarkPatch"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "the bookmark",
            "headers": {
              "ETag": {
                "description": "strong entity tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Bookmark"
                }
              }
            }
          },
          "400": {
            "description": "a bad field",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "no such bookmark",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "the url is taken",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "a false precondition",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "the body is over 64 KiB",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "not application/json (Accept-Patch says what is)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "428": {
            "description": "no If-Match",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "delete": {
        "operationId": "deleteBookmark",
        "summary": "Delete a bookmark",
        "security": [
          {
            "bearer": []
          },
          {}
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatchRequired"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "responses": {
          "204": {
            "description": "deleted"
          },
          "400": {
            "description": "a malformed id, If-Match or If-None-Match",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "no such bookmark",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "a false precondition",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "428": {
            "description": "no If-Match",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/import": {
      "post": {
        "operationId": "importBookmarks",
        "summary": "Import bookmarks, matched by url",
        "security": [
          {
            "bearer": []
          },
          {}
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/IfMatch"
          },
          {
            "$ref": "#/components/parameters/IfNoneMatch"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "oneOf": [
                  {
                    "type": "array",
                    "maxItems": 10000,
                    "items": {
                      "$ref": "#/components/schemas/ImportElement"
                    }
                  },
                  {
                    "$ref": "#/components/schemas/ImportElement"
                  }
                ]
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "the counts",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ImportCounts"
                }
              }
            }
          },
          "400": {
            "description": "a bad element, naming it",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "any If-Match",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "the body is over 4 MiB",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/events": {
      "get": {
        "operationId": "events",
        "summary": "Server-Sent Events: a snapshot, then one event per commit changing bookmarks",
        "parameters": [
          {
            "name": "count",
            "in": "query",
            "schema": {
              "type": "integer",
              "minimum": 1
            }
          }
        ],
        "responses": {
          "200": {
            "description": "the stream",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "object",
                  "description": "one event: `snapshot` first, then `bookmarks` after commits that change bookmarks",
                  "required": [
                    "event",
                    "id",
                    "data"
                  ],
                  "properties": {
                    "event": {
                      "enum": [
                        "snapshot",
                        "bookmarks"
                      ]
                    },
                    "id": {
                      "type": "string",
                      "pattern": "^[0-9]+$"
                    },
                    "retry": {
                      "type": "integer"
                    },
                    "data": {
                      "type": "string",
                      "contentMediaType": "application/json",
                      "contentSchema": {
                        "type": "object",
                        "required": [
                          "count",
                          "newestID"
                        ],
                        "additionalProperties": false,
                        "properties": {
                          "count": {
                            "type": "integer",
                            "minimum": 0
                          },
                          "newestID": {
                            "type": [
                              "integer",
                              "null"
                            ]
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "a bad count",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid read token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "too many clients",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/changes": {
      "get": {
        "operationId": "changes",
        "summary": "The bookmark changes since a token",
        "parameters": [
          {
            "name": "since",
            "in": "query",
            "schema": {
              "type": "string",
              "pattern": "^(latest|[0-9]{1,18}-[0-9a-f]+)$"
            },
            "description": "a previous answer's next, or latest",
            "allowEmptyValue": true
          },
          {
            "name": "limit",
            "in": "query",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000
            },
            "allowEmptyValue": true
          }
        ],
        "responses": {
          "200": {
            "description": "the page",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ChangesPage"
                }
              }
            }
          },
          "400": {
            "description": "a bad token or limit",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "no valid read token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "410": {
            "description": "the token is no longer kept: read the bookmarks again, then continue from next",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/health": {
      "get": {
        "operationId": "health",
        "summary": "Readiness: a read of the store",
        "responses": {
          "200": {
            "description": "ready",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          },
          "503": {
            "description": "the store cannot be read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus text (when the server keeps metrics)",
        "responses": {
          "200": {
            "description": "the metrics",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "401": {
            "description": "no valid read token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openAPI",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "the document",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  }
}

"""#
}
