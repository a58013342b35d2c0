//go:build ignore

// gen writes the ledger-balances sample: a general ledger of 40 accounts
// over three days, kept as postings without a posting id (like pgbench's
// pgbench_history: account, teller, amount, posted_at) and as end-of-day
// balances, with a trial balance per day (opening, activity, closing per
// account, as the ledger reports it).
//
//   - balances/2026-11-27.csv is the opening of the first reconciled day.
//   - 2026-11-28 is clean: every posting reached the balances once; account
//     A0039 is opened that day (no opening row) and A0040 closed (its
//     postings bring it to zero, no closing row).
//   - 2026-11-29 has four planted faults: the ledger's posting feed lost one
//     posting of A0007 (42.17) and wrote one posting of A0013 twice (the
//     second copy a replay of the first, 1,250.00); the balance of A0021 was
//     edited by hand (+100.00, no posting behind it); A0031 had no postings
//     at all (its balance unchanged: not a fault, a case a naive inner join
//     drops); A0036 is closed that day.
//   - journal/2026-11-29.csv is the core system's postings of that day (the
//     truth the ledger's feed should have delivered), for the postings
//     against postings control.
//
// Amounts are exact cents written as decimals. Deterministic: `go run
// gen.go` rewrites the same bytes.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

//go:generate go run gen.go

const accounts = 40

type posting struct {
	account, teller string
	cents           int64
	at              time.Time
}

func money(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func account(i int) string { return fmt.Sprintf("A%04d", i) }

func writePostings(name string, ps []posting) {
	samplegen.WriteCSV(name, []string{"account", "teller", "amount", "posted_at"}, func(emit func(...string)) {
		for _, p := range ps {
			emit(p.account, p.teller, money(p.cents), p.at.Format("2006-01-02T15:04:05.000000Z07:00"))
		}
	})
}

func writeBalances(name string, day string, bal map[string]int64) {
	keys := make([]string, 0, len(bal))
	for k := range bal {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	samplegen.WriteCSV(name, []string{"account", "balance", "as_of"}, func(emit func(...string)) {
		for _, k := range keys {
			emit(k, money(bal[k]), day)
		}
	})
}

func writeTrialBalance(name string, opening, closing map[string]int64) {
	seen := map[string]bool{}
	for k := range opening {
		seen[k] = true
	}
	for k := range closing {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	samplegen.WriteCSV(name, []string{"account", "opening", "activity", "closing"}, func(emit func(...string)) {
		for _, k := range keys {
			emit(k, money(opening[k]), money(closing[k]-opening[k]), money(closing[k]))
		}
	})
}

// day makes n postings on date d over the accounts in open, in time order.
func day(r *rand.Rand, d time.Time, n int, open []string) []posting {
	ps := make([]posting, 0, n)
	at := d.Add(6 * time.Hour)
	for range n {
		at = at.Add(time.Duration(r.IntN(60_000_000)+1000) * time.Microsecond)
		cents := int64(r.IntN(500_000) + 1)
		if r.IntN(3) == 0 {
			cents = -cents
		}
		ps = append(ps, posting{
			account: open[r.IntN(len(open))],
			teller:  fmt.Sprintf("T%02d", r.IntN(10)+1),
			cents:   cents,
			at:      at,
		})
	}
	return ps
}

func apply(bal map[string]int64, ps []posting) map[string]int64 {
	out := make(map[string]int64, len(bal))
	for k, v := range bal {
		out[k] = v
	}
	for _, p := range ps {
		out[p.account] += p.cents
	}
	return out
}

func main() {
	r := rand.New(rand.NewPCG(2026, 1129))
	for _, dir := range []string{"balances", "postings", "journal", "trial-balance"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			panic(err)
		}
	}
	d27 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	d28, d29 := d27.AddDate(0, 0, 1), d27.AddDate(0, 0, 2)

	// Opening of 2026-11-28: accounts 1..38 (A0039 opens on the 28th).
	opening := map[string]int64{}
	for i := 1; i <= 38; i++ {
		opening[account(i)] = int64(r.IntN(10_000_000)) - 1_000_000
	}
	opening[account(40)] = 73_512 // closed on the 28th
	writeBalances("balances/2026-11-27.csv", "2026-11-27", opening)

	// 2026-11-28: clean. A0040 is emptied and closed; A0039 opened.
	var open28 []string
	for i := 1; i <= 39; i++ {
		open28 = append(open28, account(i))
	}
	p28 := day(r, d28, 600, open28)
	p28 = append(p28, posting{account: account(40), teller: "T01", cents: -opening[account(40)], at: d28.Add(17 * time.Hour)})
	sort.SliceStable(p28, func(i, j int) bool { return p28[i].at.Before(p28[j].at) })
	close28 := apply(opening, p28)
	delete(close28, account(40))
	writePostings("postings/2026-11-28.csv", p28)
	writeBalances("balances/2026-11-28.csv", "2026-11-28", close28)
	writeTrialBalance("trial-balance/2026-11-28.csv", opening, close28)

	// 2026-11-29: the journal is the truth; the ledger's feed lost one
	// posting and doubled another; one balance was edited by hand.
	var open29 []string
	for i := 1; i <= 39; i++ {
		if i != 31 && i != 36 { // A0031: no postings; A0036: closed below
			open29 = append(open29, account(i))
		}
	}
	journal := day(r, d29, 600, open29)
	journal = append(journal,
		posting{account: account(7), teller: "T04", cents: 4_217, at: d29.Add(9*time.Hour + 12*time.Minute)},
		posting{account: account(13), teller: "T02", cents: 125_000, at: d29.Add(11*time.Hour + 3*time.Minute)},
		posting{account: account(36), teller: "T09", cents: -close28[account(36)], at: d29.Add(16 * time.Hour)},
	)
	sort.SliceStable(journal, func(i, j int) bool { return journal[i].at.Before(journal[j].at) })
	close29 := apply(close28, journal)
	delete(close29, account(36))
	close29[account(21)] += 10_000 // edited by hand
	writePostings("journal/2026-11-29.csv", journal)
	writeBalances("balances/2026-11-29.csv", "2026-11-29", close29)
	writeTrialBalance("trial-balance/2026-11-29.csv", close28, close29)

	var feed []posting
	for _, p := range journal {
		switch {
		case p.account == account(7) && p.cents == 4_217:
			continue // lost
		case p.account == account(13) && p.cents == 125_000:
			feed = append(feed, p, p) // replayed: written twice
		default:
			feed = append(feed, p)
		}
	}
	writePostings("postings/2026-11-29.csv", feed)
}
