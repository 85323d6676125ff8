#!/usr/bin/env bash
# Proves scripts/check-snippets.sh on guides of its own:
# a block that does not compile fails the check, named by its markdown file
# and line; so do a block missing an import it needs (a block with imports
# gets only those), a data race the compiler finds after type checking, a
# broken package manifest, a broken prelude (named by its own file) and a
# malformed annotation. A guide whose blocks need its prelude, with a
# standalone block and a skipped one, passes with the exact count. Needs
# `swift build --build-tests` first (it compiles against that build); takes
# 10-20 s. `make test` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-snippets.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-snippets-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME: checks $work/NAME.md into a folder of its own; sets $output and $status.
run() {
    output=$("$check" --output "$work/out-$1" "$work/$1.md" 2>&1)
    status=$?
}

# 1. A guide that compiles: a declaration block, fragments that need the
#    prelude's context, a standalone block redeclaring a name, a skipped block.
cat >"$work/Good.md" <<'EOF'
# Good

```swift
import Foundation
import LiteRecord

@Entity final class Note {
    var title = ""
}
```

Fragments use what the prelude gives them, and may shadow it:

```swift
let note = Note.create(in: context)
note.title = "Groceries"
try context.save()
```

```swift
let context = stack.newContext()
print(try Note.count(in: context))
```

A later version of the model, declared again:

<!-- snippet: standalone -->
```swift
@Entity final class Note {
    var title = ""
    var stars = 0
}
```

<!-- snippet: skip not Swift at all -->
```swift
this is not Swift
```

<!-- snippet: prelude GoodPrelude.swift -->
EOF
cat >"$work/GoodPrelude.swift" <<'EOF'
let stack = try RecordStack(inMemoryWith: [Note.self])
let context = stack.newContext()
EOF
run Good
[ "$status" -eq 0 ] || fail "a guide that compiles failed the check (status $status): $output"
[ "$output" = "[snippets] 4 blocks compiled" ] || fail "the count is not '[snippets] 4 blocks compiled': $output"

# 2. A type error in a fragment: named by file and line, the compiler's error shown.
cat >"$work/Broken.md" <<'EOF'
# Broken

```swift
let fine = 1
```

Some prose.

```swift
let count = 2
let wrong: Int = "three"
```
EOF
run Broken
[ "$status" -eq 1 ] || fail "a block that does not compile did not fail the check (status $status): $output"
case "$output" in
    *"$work/Broken.md:11:18: error: cannot convert value of type 'String' to specified type 'Int'"*) ;;
    *) fail "the compiler's error does not name Broken.md:11:18: $output" ;;
esac
case "$output" in
    *"[snippets] FAILED: 1 of 2 blocks do not compile:"*"$work/Broken.md:10: the block of lines 10-11"*) ;;
    *) fail "the summary does not name the failing block Broken.md:10: $output" ;;
esac
case "$output" in
    *"Broken.md:4"*) fail "the block that compiles is named as failing: $output" ;;
esac

# 3. A block with imports gets only those: UUID without Foundation fails,
#    also inside the @Entity macro's expansion.
cat >"$work/Imports.md" <<'EOF'
# Imports

```swift
import LiteRecord

@Entity final class Person {
    var identifier = UUID()
}
```
EOF
run Imports
[ "$status" -eq 1 ] || fail "a block missing 'import Foundation' passed (status $status): $output"
case "$output" in
    *"$work/Imports.md:7:22: error: cannot find 'UUID' in scope"*"$work/Imports.md:4: the block of lines 4-8"*) ;;
    *) fail "the missing import is not named at Imports.md:7: $output" ;;
esac

# 4. A data race, found by the diagnostic passes after type checking.
cat >"$work/Race.md" <<'EOF'
# Race

```swift
final class Box { var count = 0 }
```

```swift
let box = Box()
Task.detached { box.count += 1 }
box.count += 1
```
EOF
run Race
[ "$status" -eq 1 ] || fail "a data race passed the check (status $status): $output"
case "$output" in
    *"$work/Race.md:9:"*"risks causing data races"*"$work/Race.md:8: the block of lines 8-10"*) ;;
    *) fail "the data race is not named at Race.md:9: $output" ;;
esac

# 5. A manifest is evaluated as SwiftPM does; its errors name the markdown too.
cat >"$work/Manifest.md" <<'EOF'
# Manifest

```swift
// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "App",
    targets: [.executableTarget(name: "App")]
)
```

```swift
// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "App",
    targets: [.executableTargett(name: "App")]
)
```
EOF
run Manifest
[ "$status" -eq 1 ] || fail "a broken manifest passed the check (status $status): $output"
case "$output" in
    *"$work/Manifest.md:19:"*"no member 'executableTargett'"*"[snippets] FAILED: 1 of 2 blocks"*"$work/Manifest.md:14: the block of lines 14-20"*) ;;
    *) fail "the broken manifest is not named at Manifest.md:19: $output" ;;
esac

# 6. A misspelt annotation is refused, not ignored.
cat >"$work/Annotation.md" <<'EOF'
# Annotation

<!-- snippet: skipp typo -->
```swift
let x = 1
```
EOF
run Annotation
[ "$status" -eq 2 ] || fail "an unknown annotation did not stop the check (status $status): $output"
case "$output" in
    *"$work/Annotation.md:3: unknown snippet annotation 'skipp typo'"*) ;;
    *) fail "the unknown annotation is not named at Annotation.md:3: $output" ;;
esac

# 7. An error in a prelude names the prelude's own file and line.
cat >"$work/BadPrelude.md" <<'EOF'
# Bad prelude

```swift
print(context)
```

<!-- snippet: prelude BadPrelude.swift -->
EOF
printf 'let stack = try RecordStack(inMemoryWith: [])\nlet context: Int = stack.newContext()\n' >"$work/BadPrelude.swift"
run BadPrelude
[ "$status" -eq 1 ] || fail "a broken prelude passed the check (status $status): $output"
case "$output" in
    *"$work/BadPrelude.swift:2:"*"error:"*"$work/BadPrelude.swift: the snippet prelude of $work/BadPrelude.md"*) ;;
    *) fail "the broken prelude is not named at BadPrelude.swift:2: $output" ;;
esac

if [ "$failures" -ne 0 ]; then
    echo "scripts/check-snippets.sh: $failures check(s) failed"
    exit 1
fi
echo "scripts/check-snippets.sh: broken blocks, imports, manifests, preludes and data races named by file and line; preludes, standalone and skipped blocks work"
