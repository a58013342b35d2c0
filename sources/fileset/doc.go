// Package fileset is what the input kinds that read files share (csv,
// ndjson and parquet in sources/file, kcat in sources/kafka), each step in
// one place:
//
//   - List resolves a path, folder or glob (** across folders) into the
//     files read and the files skipped, with the commit rule and its source
//     (rules.go: Flink FileSink in-progress and pending files, BucketingSink
//     states and valid-length side files, S3 multipart temporaries, commit
//     markers, staging folders), cutting a part file to the committed
//     length a valid-length side file gives (validlength.go), and
//     Partitions reads Hive partition folders into columns (partition.go);
//   - Fingerprint records each file's size and SHA-256, the hash computed
//     while the run reads the file, and keeps its state for
//     sources.File.Unchanged (fingerprint.go);
//   - Open and OpenScanFile open a file for reading, decompressing it by
//     extension (.gz with compress/gzip, .zst with
//     github.com/klauspost/compress/zstd), so line numbers are those of the
//     decompressed text, and cutting it to its valid length; Lines reads a
//     text file's lines;
//   - ListInput does the listing and fingerprinting of a file kind's Read
//     and describes it as a sources.Input; ListSchema lists for a Schemer.
//
// It is no kind and registers none.
package fileset
