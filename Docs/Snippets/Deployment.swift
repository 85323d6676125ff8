// The snippet prelude of Docs/Deployment.md: the names its Swift blocks take
// as given. scripts/check-snippets.sh compiles these declarations beside
// the blocks, and runs these statements at the start of the function it
// wraps each block's statements in. Not a file to build on its own.

@Entity final class Note {
    var title = ""
    var isPinned = false
}

let url = URL(fileURLWithPath: "/var/lib/notes/Notes.sqlite")
let backups = URL(fileURLWithPath: "/backups")
let stack = try RecordStack(storeAt: url, entities: [Note.self])
let replica = try RecordStack(replicaAt: URL(fileURLWithPath: "/mnt/backup-disk/notes-replica"), entities: [Note.self])
