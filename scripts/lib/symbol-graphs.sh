# Sourced by the checks that read the public interface of the built modules.
#
# extract_symbol_graphs DIR writes the symbol graphs of LiteRecord and
# LiteRecordTesting, as `swift build` last built them, into DIR: what DocC
# and a user's compiler see, in about a second, without rebuilding anything.
extract_symbol_graphs() {
    local bin triple module
    local sdk=()
    bin=$(swift build --show-bin-path)
    triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
    # On macOS the extractor finds Foundation only in the SDK, which it is
    # not told of by itself.
    if [ "$(uname -s)" = Darwin ]; then sdk=(-sdk "$(xcrun --sdk macosx --show-sdk-path)"); fi
    for module in LiteRecord LiteRecordTesting; do
        swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -I Sources/CSQLite \
            -target "$triple" "${sdk[@]}" -minimum-access-level public -output-dir "$1" >/dev/null
    done
}
