# gen.py writes the Parquet files of the end-to-end cases parquet-nanoseconds-utc,
# parquet-nanoseconds-int96-id, parquet-nanoseconds-reported,
# parquet-decimal-part-files-beyond-38, parquet-decimal-40-digits,
# parquet-decimal-40-digits-too-wide and parquet-timestamp-units with pyarrow,
# as pandas, pyarrow and Spark write them (deterministic: run it again and
# the files do not change):
#
#	python3 gen.py
import pyarrow as pa
import pyarrow.parquet as pq
from decimal import Decimal

# 2026-01-01T10:00:00Z in nanoseconds since the epoch.
BASE = 1767261600 * 10**9


def write(path, cols, **kw):
    pq.write_table(pa.table(cols), path, **kw)


def ns_utc(values):
    return pa.array(values, pa.timestamp('ns', tz='UTC'))


# A zone-aware column as pandas/pyarrow write it: TIMESTAMP(NANOS,
# isAdjustedToUTC=true). The sink's 10:00:00.000000999Z against the
# source's text 10:00:00Z.
write('sink.parquet', {'id': pa.array(['1']), 'ts': ns_utc([BASE + 999])})

# INT96 (Spark's legacy encoding) as the id: 10:00:00.000000999 in the
# source, 10:00:00.000000001 in the sink.
write('../parquet-nanoseconds-int96-id/source.parquet',
      {'ts': ns_utc([BASE + 999]), 'amount': pa.array([Decimal('10.00')], pa.decimal128(18, 2))},
      use_deprecated_int96_timestamps=True)
write('../parquet-nanoseconds-int96-id/sink.parquet',
      {'ts': ns_utc([BASE + 1]), 'amount': pa.array([Decimal('10.00')], pa.decimal128(18, 2))},
      use_deprecated_int96_timestamps=True)

# Whole microseconds (id 1, 3) and a nanosecond value (id 2) on each side.
write('../parquet-nanoseconds-reported/source.parquet',
      {'id': pa.array(['1', '2', '3']), 'ts': ns_utc([BASE + 5000, BASE + 999, BASE + 7000])})
write('../parquet-nanoseconds-reported/sink.parquet',
      {'id': pa.array(['1', '2', '3']), 'ts': ns_utc([BASE + 5000, BASE + 1, BASE + 8000])})

# DECIMAL(38,0) holding 35 digits in one part file, DECIMAL(38,10) holding
# 1.5 in the other: DECIMAL(36,1) holds both.
write('../parquet-decimal-part-files-beyond-38/parts/part-0.parquet',
      {'id': pa.array(['1']), 'amount': pa.array([Decimal('12345678901234567890123456789012345')], pa.decimal128(38, 0))})
write('../parquet-decimal-part-files-beyond-38/parts/part-1.parquet',
      {'id': pa.array(['2']), 'amount': pa.array([Decimal('1.5')], pa.decimal128(38, 10))})

# DECIMAL(40,2) (a 256-bit decimal) holding small values, and holding one
# of 38 integer digits, which no DECIMAL(38,2) holds.
write('../parquet-decimal-40-digits/sink.parquet',
      {'id': pa.array(['1', '2']), 'amount': pa.array([Decimal('1.01'), Decimal('2.50')], pa.decimal256(40, 2))})
write('../parquet-decimal-40-digits-too-wide/sink.parquet',
      {'id': pa.array(['1', '2']), 'amount': pa.array([Decimal('1.01'), Decimal('12345678901234567890123456789012345678.50')], pa.decimal256(40, 2))})

# Part files in milliseconds and in microseconds (both UTC-adjusted).
write('../parquet-timestamp-units/parts/part-0.parquet',
      {'id': pa.array(['1']), 'ts': pa.array([(BASE + 123000000) // 10**6], pa.timestamp('ms', tz='UTC'))})
write('../parquet-timestamp-units/parts/part-1.parquet',
      {'id': pa.array(['2']), 'ts': pa.array([(BASE + 1000) // 10**3], pa.timestamp('us', tz='UTC'))})
