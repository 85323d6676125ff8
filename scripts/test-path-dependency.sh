#!/usr/bin/env bash
# Proves the path dependency Docs/GettingStarted.md shows ("A local checkout"): a new package depends on this checkout through a folder
# NOT called LiteRecord (a symlink named `literecord-clone`), with
#   .package(name: "LiteRecord", path: …) and .product(name: "LiteRecord", package: "LiteRecord")
# and is built and run. It also checks what the guide says of `.package(path:)`
# without a name: `package: "<folder name>"` resolves; `package: "LiteRecord"`
# and a bare "LiteRecord" fail with the messages the guide quotes. The build compiles swift-syntax again (several minutes), so
# `make test` does not run it.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="$PWD"
SWIFT=${SWIFT:-swift}

work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-path-dependency-XXXXXX")
trap 'rm -rf "$work"' EXIT
ln -s "$checkout" "$work/literecord-clone"
mkdir -p "$work/Todo/Sources/todo"

manifest() { # $1: the dependency, $2: the product dependency
    cat > "$work/Todo/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Todo",
    platforms: [.macOS(.v15)],
    dependencies: [
        $1,
    ],
    targets: [
        .executableTarget(name: "todo", dependencies: [$2]),
    ]
)
EOF
}

cat > "$work/Todo/Sources/todo/main.swift" <<'EOF'
import Foundation
import LiteRecord

@Entity final class Todo {
    var title = ""
    var isDone = false
}

let stack = try RecordStack(inMemoryWith: [Todo.self])
let context = stack.newContext()
let todo = Todo()
todo.title = "Buy milk"
context.insert(todo)
try context.save()
let rowID = todo.recordID?.rowID ?? -1
let found = try Todo.find(rowID: rowID, in: context)
print("found \(found?.title ?? "nothing") as \(rowID)")
EOF

cd "$work/Todo"

# 1. Without a name, the folder is the package: `package: "literecord-clone"` resolves…
manifest '.package(path: "../literecord-clone")' '.product(name: "LiteRecord", package: "literecord-clone")'
"$SWIFT" package describe >/dev/null
echo "ok: .package(path:) with package: \"<folder name>\" resolves"

# 2. …and package: "LiteRecord" does not, with the message the guide quotes…
manifest '.package(path: "../literecord-clone")' '.product(name: "LiteRecord", package: "LiteRecord")'
if output=$("$SWIFT" package describe 2>&1); then
    echo "FAIL: package: \"LiteRecord\" resolved against a folder named literecord-clone"; exit 1
fi
case "$output" in
    *"unknown package 'LiteRecord' in dependencies of target 'todo'; valid packages are: 'literecord-clone'"*) ;;
    *) echo "FAIL: unexpected message: $output"; exit 1 ;;
esac
echo "ok: .package(path:) with package: \"LiteRecord\" fails as the guide says"

# …nor a bare "LiteRecord" (found only when the graph is built, before compiling).
manifest '.package(path: "../literecord-clone")' '"LiteRecord"'
if output=$("$SWIFT" build --target todo 2>&1); then
    echo "FAIL: a bare \"LiteRecord\" resolved against a folder named literecord-clone"; exit 1
fi
case "$output" in
    *"product 'LiteRecord' required by package 'todo' target 'todo' not found"*) ;;
    *) echo "FAIL: unexpected message: $output"; exit 1 ;;
esac
echo "ok: .package(path:) with a bare \"LiteRecord\" fails as the guide says"

# 3. The documented form, built and run.
manifest '.package(name: "LiteRecord", path: "../literecord-clone")' '.product(name: "LiteRecord", package: "LiteRecord")'
if "$SWIFT" package describe 2>&1 | grep -i -E "warning|deprecat"; then
    echo "FAIL: the documented form draws a warning"; exit 1
fi
"$SWIFT" build 2>&1 | tail -3
output=$("$SWIFT" run --skip-build todo)
[ "$output" = "found Buy milk as 1" ] || { echo "FAIL: the program printed: $output"; exit 1; }
echo "ok: .package(name: \"LiteRecord\", path:) with .product(name: \"LiteRecord\", package: \"LiteRecord\") builds and runs: $output"
