package fileset

import (
	"fmt"
	"path/filepath"
	"strings"
)

// A rule of the commit protocols: what a file name (or a folder on its path)
// says about the file.
type rule struct {
	reason string
	// uncommitted: the file holds output written but not committed.
	uncommitted bool
	// side: a valid-length side file, applied to its part file.
	side bool
}

// skipRule decides whether a file matched below the root is not committed
// output (or not records at all). rel is the slash-separated path below the
// root.
type skipRule func(rel, base string, folders []string) (rule, bool)

// skipRules are applied in order; the first that claims a file gives the
// reason. Each names its source.
var skipRules = []skipRule{
	validLengthSide, commitMarker, checksumFile, stagingFolder,
	fileSinkInProgress, bucketingSinkStates, s3TempObject, hiddenName,
}

func classify(rel string) (rule, bool) {
	parts := strings.Split(rel, "/")
	var folders []string
	for _, f := range parts[:len(parts)-1] {
		if f != "." && f != "" {
			folders = append(folders, f)
		}
	}
	base := parts[len(parts)-1]
	for _, r := range skipRules {
		if out, ok := r(rel, base, folders); ok {
			return out, true
		}
	}
	return rule{}, false
}

// validLengthSide: "_<part>.valid-length" or ".<part>.valid-length", the
// side file Flink's BucketingSink writes beside a part file it could not
// truncate (BucketingSink: validLengthPrefix "_" and validLengthSuffix
// ".valid-length" by default; "." when the prefix is set so).
func validLengthSide(_, base string, _ []string) (rule, bool) {
	if partName(base) != "" {
		return rule{side: true}, true
	}
	return rule{}, false
}

// partName is the part file a valid-length side file's name points to, or
// "" when the name is not one.
func partName(base string) string {
	if !strings.HasSuffix(base, validLengthSuffix) {
		return ""
	}
	if base[0] != '_' && base[0] != '.' {
		return ""
	}
	name := strings.TrimSuffix(base[1:], validLengthSuffix)
	if name == "" {
		return ""
	}
	return name
}

func partOfSide(side string) string {
	return filepath.Join(filepath.Dir(side), partName(filepath.Base(side)))
}

// commitMarker: files a commit protocol writes to say a job or task
// committed, which hold no records: "_SUCCESS" (Hadoop FileOutputCommitter,
// mapreduce.fileoutputcommitter.marksuccessfuljobs; Spark writes it too),
// "_committed_<id>" and "_started_<id>" (Databricks' transactional commit
// protocol, DBIO), "_metadata" and "_common_metadata" (Parquet summary
// files, parquet-mr's ParquetOutputCommitter).
func commitMarker(_, base string, _ []string) (rule, bool) {
	switch {
	case base == "_SUCCESS":
		return rule{reason: "commit marker _SUCCESS (Hadoop FileOutputCommitter; Spark): no records"}, true
	case strings.HasPrefix(base, "_committed_"):
		return rule{reason: "commit marker _committed_<id> (Databricks transactional commit protocol): no records"}, true
	case strings.HasPrefix(base, "_started_"):
		return rule{reason: "commit marker _started_<id> (Databricks transactional commit protocol): no records"}, true
	case base == "_metadata", base == "_common_metadata":
		return rule{reason: "Parquet summary file " + base + " (parquet-mr ParquetOutputCommitter): no records"}, true
	}
	return rule{}, false
}

// checksumFile: ".<name>.crc", the checksum Hadoop's ChecksumFileSystem
// (the local file system of Hadoop and Flink's Hadoop writers) keeps beside
// each file.
func checksumFile(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".crc") && len(base) > len(".crc")+1 {
		return rule{reason: "checksum file (Hadoop ChecksumFileSystem .<name>.crc): no records"}, true
	}
	return rule{}, false
}

// stagingFolder: a file in a folder below the root whose name starts with
// "." or "_" is a job's staging area, not committed output: "_temporary/"
// (Hadoop FileOutputCommitter's task-attempt folders, also Spark's),
// ".tmp/" and the like (ENGINEERING-NOTES, gotcha 9: a glob such as
// dir/*/* picks them up).
func stagingFolder(_, _ string, folders []string) (rule, bool) {
	for _, f := range folders {
		if strings.HasPrefix(f, ".") || strings.HasPrefix(f, "_") {
			return rule{reason: fmt.Sprintf("in staging folder %s/ (a folder starting with %q: Hadoop FileOutputCommitter _temporary/, .tmp/): not committed output", f, f[:1]), uncommitted: true}, true
		}
	}
	return rule{}, false
}

// fileSinkInProgress: ".<part>.inprogress.<uuid>", a Flink FileSink (and
// StreamingFileSink) part file that is in progress or pending: the sink
// writes each part file under this hidden name and renames it to <part>
// only when a checkpoint commits it; a pending file is not renamed
// (Flink docs, "File Sink", part file lifecycle; LocalRecoverableWriter and
// HadoopRecoverableWriter generateStagingTempFilePath: "." + name +
// ".inprogress." + UUID).
func fileSinkInProgress(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") && strings.Contains(base, ".inprogress.") {
		return rule{reason: "Flink FileSink in-progress or pending part file (.<part>.inprogress.<uuid>; renamed to <part> only when a checkpoint commits it)", uncommitted: true}, true
	}
	return rule{}, false
}

// bucketingSinkStates: "_<part>.in-progress" and "_<part>.pending", the
// names Flink's legacy BucketingSink gives a part file before a checkpoint
// commits it (BucketingSink: inProgressPrefix/pendingPrefix "_",
// inProgressSuffix ".in-progress", pendingSuffix ".pending").
func bucketingSinkStates(_, base string, _ []string) (rule, bool) {
	switch {
	case strings.HasSuffix(base, ".in-progress"):
		return rule{reason: "Flink BucketingSink in-progress part file (_<part>.in-progress)", uncommitted: true}, true
	case strings.HasSuffix(base, ".pending"):
		return rule{reason: "Flink BucketingSink pending part file (_<part>.pending; committed by the next checkpoint)", uncommitted: true}, true
	}
	return rule{}, false
}

// s3TempObject: "_<part>_tmp_<uuid>", the object Flink's S3 writer uploads
// for the trailing bytes of a multipart upload that is not complete
// (flink-s3-fs-base RecoverableMultiPartUploadImpl,
// createIncompletePartObjectNamePrefix: "_" + name + "_tmp_").
func s3TempObject(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, "_") && strings.Contains(base, "_tmp_") {
		return rule{reason: "Flink S3 multipart upload's temporary object (_<part>_tmp_<uuid>): not committed", uncommitted: true}, true
	}
	return rule{}, false
}

// hiddenName: any other name starting with "." or "_" is hidden from the
// readers of a file sink's output (Hadoop FileInputFormat's hiddenFileFilter
// and Flink's FileSource skip such names).
func hiddenName(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
		return rule{reason: fmt.Sprintf("name starts with %q: a hidden file, not committed output (Hadoop FileInputFormat and Flink FileSource skip such names)", base[:1]), uncommitted: true}, true
	}
	return rule{}, false
}
