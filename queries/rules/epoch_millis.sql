-- fragment: epoch_millis
-- description: The rule that a timestamp text .Text is epoch milliseconds (Flink's convention): ten or more digits
-- description: and nothing else.
-- returns: BOOLEAN
regexp_full_match({{.Text}}, '\d{10,}')
