package sources

import (
	"fmt"
	"testing"
)

func BenchmarkKafkaDecode(b *testing.B) {
	var recs []kafkaRecord
	for i := 0; i < 16384; i++ {
		recs = append(recs, kafkaRecord{Offset: int64(i), Value: []byte(fmt.Sprintf(`{"entry_id":"E%09d","account":"ACC-%02d","amount":%d.%02d,"checkpoint_id":%d}`, i, i%64, i*7919%100000, i%100, i/100))})
	}
	d := newRecordDecoder(recordOptions{value: payloadJSON, key: payloadString}, newKafkaColumns())
	p := partitionRef{"t", 0}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// a spool of 64 chunks at most, so the file stays the size of a
		// read's (a growing file measures the page cache)
		sp, err := newSpool()
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 64 && i < b.N; j++ {
			if _, err := d.decodeChunk(sp, p, recs); err != nil {
				b.Fatal(err)
			}
			i++
		}
		sp.close()
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}

// plainASCII's word-at-a-time test agrees with the byte-at-a-time one for
// every byte at every position of a word.
func TestPlainASCII(t *testing.T) {
	slow := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c == '\\' || c >= 0x80 {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 40; n++ {
		for c := 0; c < 256; c++ {
			for at := 0; at < n; at++ {
				b := []byte(`{"abcdefgh":"ijklmnop","qrstuvwx":"yz0123"}`)[:n]
				b[at] = byte(c)
				if got, want := plainASCII(b), slow(b); got != want {
					t.Fatalf("byte %#x at %d of %d: %v, want %v", c, at, n, got, want)
				}
			}
		}
	}
}
