# Reads a Package.swift on standard input and writes it without its test
# targets other than LiteRecordTests (scripts/model-proof.sh): the macro and
# LiteRecordTesting suites are not the model's, and building them (swift-syntax's
# test support among them) would only cost time. Everything else is kept as
# it was, the library's targets included.
import re
import sys

text = sys.stdin.read()
kept = []
for block in re.split(r"(?m)^(?=        \.(?:testTarget|target|executableTarget|macro|systemLibrary)\()", text):
    name = re.match(r"        \.testTarget\(\s*name: \"([^\"]+)\"", block)
    if name and name.group(1) != "LiteRecordTests":
        # The last target's block also holds the end of the manifest.
        tail = re.search(r"(?ms)^    \],\s*\n.*\Z", block)
        kept.append(tail.group(0) if tail else "")
    else:
        kept.append(block)
sys.stdout.write("".join(kept))
