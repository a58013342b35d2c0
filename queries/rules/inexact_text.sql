-- fragment: inexact_text
-- description: The rule that a text .Text, which DuckDB's cast reads as a value of class .Class, is not read exactly
-- description: (the cast would change it): a number ("number", an integer type being .Scale 0) not written as a
-- description: plain decimal number — an optional sign, digits, an optional point and at most .Scale fraction digits,
-- description: spaces around; no exponent (1e1), hex (0x10) or _ (1_000), which the cast reads, nor more fraction
-- description: digits, which it rounds (1.5 as the INTEGER 2); a date ("date") not written as a plain date
-- description: YYYY-MM-DD (the cast drops a time of day: 2024-01-02 13:45:00 would be 2024-01-02); a timestamp
-- description: ("timestamp", a declared type) not written as ISO 8601 — a date YYYY-MM-DD, then optionally T or a
-- description: space, hh:mm, :ss and a fraction, and a zone (Z, UTC, an offset such as +01:00, or an IANA zone name
-- description: Area/Location such as Asia/Shanghai, its area one of the tz database's: Africa, America, Antarctica,
-- description: Arctic, Asia, Atlantic, Australia, Europe, Indian, Pacific, Etc, and the links' Brazil, Canada, Chile,
-- description: Mexico, US), spaces around; the cast also reads epoch, 1970-1-1 0:0:0 and 24:00:00, and through ICU an
-- description: abbreviation as some zone of its choosing (IST as Asia/Kolkata, not Israel or Ireland; BST as
-- description: Asia/Dhaka; PST as America/Los_Angeles, -07:00 in July), ICU's own names (SystemV/AST4, Etc/Unknown
-- description: read as UTC) and a lower-case utc as wall-clock time — or with non-zero fraction digits of a second
-- description: beyond the .Digits its type holds (the cast drops them: .1234567 would be .123456); an instant ("instant", text compared with a timestamp) the same, but with
-- description: no zone name (the comparison reads Z, UTC and offsets); a time of day ("time") not written as a plain
-- description: H:MM or H:MM:SS with an optional fraction (the hour of one or two digits, 0 to 23, or 24:00[:00], which
-- description: TIME holds), spaces
-- description: around, or with non-zero fraction digits beyond the .Digits its type holds (the cast drops a date,
-- description: 2024-01-01 12:00:00 being 12:00:00, an offset, 12:00:00+05 being 12:00:00, and further digits,
-- description: .0000009 being .000000); an interval ("interval", text compared with or declared an INTERVAL) not
-- description: written as a plain duration — one or more parts of an integer (an optional minus sign, digits) and a
-- description: unit (year, mon, month, week, day, hour, minute, second, millisecond, microsecond, each also plural,
-- description: any case), separated by spaces, then optionally a time H:MM or H:MM:SS with an optional fraction (the
-- description: hours any number, an optional minus sign), or that time alone, spaces around — or with non-zero fraction
-- description: digits beyond the .Digits its type holds (the cast reads 0.5 months as 15 days and 1.5 days as 1 day
-- description: 12:00:00, taking a month for 30 days and a day for 24 hours; drops the units before a time,
-- description: 04:05:06 1 day being 04:05:06; reads 1M as a minute, 90 as 90 seconds, 1 day ago as -1 day; drops
-- description: further digits, 00:00:00.0000005 being 00:00:00). FALSE for any other class.
-- returns: BOOLEAN
{{if eq .Class "number"}}NOT regexp_full_match({{.Text}}, {{if eq .Scale 0}}'\s*[+-]?\d+\.?\s*'{{else}}{{lit (printf "\\s*[+-]?(\\d+(\\.\\d{0,%d})?|\\.\\d{1,%d})\\s*" .Scale .Scale)}}{{end}})
{{- else if eq .Class "date"}}NOT regexp_full_match({{.Text}}, '\s*\d{4,}-\d{2}-\d{2}\s*')
{{- else if eq .Class "timestamp"}}(NOT regexp_full_match({{.Text}}, '\s*\d{4,}-\d{2}-\d{2}([Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?|(?i:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc|Brazil|Canada|Chile|Mexico|US)(/[A-Za-z0-9_+-]+)+))?)?\s*')
  OR regexp_matches({{.Text}}, '(?i)\sEtc/Unknown\s*$')
  OR regexp_matches({{.Text}}, {{lit (printf ":\\d{2}\\.\\d{%d}\\d*[1-9]" .Digits)}}))
{{- else if eq .Class "instant"}}(NOT regexp_full_match({{.Text}}, '\s*\d{4,}-\d{2}-\d{2}([Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?))?)?\s*')
  OR regexp_matches({{.Text}}, {{lit (printf ":\\d{2}\\.\\d{%d}\\d*[1-9]" .Digits)}}))
{{- else if eq .Class "time"}}(NOT regexp_full_match({{.Text}}, '\s*(([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?|24:00(:00(\.0+)?)?)\s*')
  OR regexp_matches({{.Text}}, {{lit (printf ":\\d{2}\\.\\d{%d}\\d*[1-9]" .Digits)}}))
{{- else if eq .Class "interval"}}(NOT regexp_full_match({{.Text}}, '(?i)\s*(-?\d+\s*(years?|mons?|months?|weeks?|days?|hours?|minutes?|seconds?|milliseconds?|microseconds?)(\s+-?\d+\s*(years?|mons?|months?|weeks?|days?|hours?|minutes?|seconds?|milliseconds?|microseconds?))*(\s+-?\d+:[0-5]\d(:[0-5]\d(\.\d+)?)?)?|-?\d+:[0-5]\d(:[0-5]\d(\.\d+)?)?)\s*')
  OR regexp_matches({{.Text}}, {{lit (printf ":\\d{2}\\.\\d{%d}\\d*[1-9]" .Digits)}}))
{{- else}}FALSE
{{- end}}
