#!/usr/bin/env bash
# Compiles every ```swift block of README.md, Docs/*.md, the READMEs of
# Examples/ and Integrations/ and the DocC catalogs' pages against the built
# library, so that a guide cannot show code that does not
# compile. `make test` runs it after building; it prints
# `[snippets] N blocks compiled`, or names each failing block by its markdown
# file and line and exits 1.
#
# How a guide's blocks are compiled (scripts/lib/snippets.py does the work):
# each markdown file is one Swift module, so the blocks of a guide share its
# declarations, and guides do not collide. In a block, imports and
# declarations (types, functions, extensions) stay at file scope; the other
# lines, the statements, are wrapped in order in
#     @MainActor func snippet_<line>() async throws { do { … } }
# A block with `import` lines is compiled with exactly those imports (a reader
# copies it as a file); one without gets Foundation, LiteRecord and what the
# guide's other blocks import. `#sourceLocation` makes the compiler's errors
# name the markdown file and line. A whole Package.swift (a block starting with
# `// swift-tools-version:`) is evaluated by `swift package dump-package`.
#
# Annotations, HTML comments that GitHub and DocC do not show; keep them rare:
#   <!-- snippet: skip REASON -->   right before a block that cannot compile
#                                   here (a manifest excerpt, Core Data, SwiftUI)
#   <!-- snippet: standalone -->    right before a block compiled as a module of
#                                   its own (with the prelude): one that declares
#                                   a name another block of the guide declares
#   <!-- snippet: prelude FILE -->  anywhere, once per guide: a Swift file
#                                   (Docs/Snippets/, path relative to the guide)
#                                   of what the blocks take as given. Its
#                                   declarations are shared; its statements
#                                   open every wrapper function (a block may
#                                   shadow them; they see the block's imports).
#                                   Not inside the comment: DocC reads a line
#                                   starting with @ as a directive
#   <!-- snippet: package DIR -->   the guide's blocks need another package's
#                                   build (Server.md: Examples/Bookmarks, for
#                                   Hummingbird): `make example-server` checks
#                                   them, `make test` does not
#   <!-- snippet: against DIR -->   right before a block that needs yet another
#                                   package's build (Server.md's Vapor section:
#                                   Integrations/VaporLiteRecord): left out of
#                                   the guide's own check; the guide's blocks so
#                                   marked form one module, without the prelude,
#                                   checked by `--package DIR` (`make
#                                   integration-vapor`)
#
#   scripts/check-snippets.sh [--package DIR] [--build FOLDER] [--verbose] [--output DIR] [MARKDOWN...]
#
# The compiler is the one `swift build` used, with the search paths, module
# maps and macro plugins of one of the package's targets (read from the
# build's own plan, .build/debug.yaml): LiteRecordTestingTests, which sees
# LiteRecord, LiteRecordTesting, Testing and XCTest; for Examples/Notes
# (`make example`) NotesCoreTests; for Examples/Bookmarks
# (`make example-server`) HummingbirdLiteRecord, which sees Hummingbird; for
# Integrations/VaporLiteRecord VaporLiteRecord, which sees Vapor. --build names
# the build folder of a package built with --scratch-path. Nothing is rebuilt. The generated modules are in DIR/.build/snippets/ (or
# --output), and one whose sources and dependencies did not change since it
# last passed is not compiled again. --verbose adds the blocks not compiled
# and the time taken.
set -euo pipefail
cd "$(dirname "$0")/.."

package=.
arguments=()
while [ $# -gt 0 ]; do
    case "$1" in
        --package) package=$2; shift 2 ;;
        --build) arguments+=(--build "$2"); shift 2 ;;
        *) arguments+=("$1"); shift ;;
    esac
done
case "$package" in
    .) target=LiteRecordTestingTests ;;
    Examples/Notes) target=NotesCoreTests ;;
    # The integration's own target: in the plan of the example's build and in
    # that of the integration's tests, which make example-server builds in the
    # same folder afterwards.
    Examples/Bookmarks) target=HummingbirdLiteRecord ;;
    Integrations/VaporLiteRecord) target=VaporLiteRecord ;;
    *) echo "[snippets] error: no target known for package $package"; exit 2 ;;
esac
markdown=()
skip_value=false
for argument in ${arguments[@]+"${arguments[@]}"}; do
    if $skip_value; then skip_value=false; continue; fi
    case "$argument" in --build) skip_value=true ;; --*) ;; *) markdown+=("$argument") ;; esac
done
if [ ${#markdown[@]} -eq 0 ]; then
    arguments+=(README.md Docs/*.md Examples/*/README.md Integrations/*/README.md Sources/*/*.docc/*.md)
fi
exec python3 scripts/lib/snippets.py --package "$package" --target "$target" "${arguments[@]}"
