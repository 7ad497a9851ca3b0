// SPDX-License-Identifier: GPL-2.0

//! Extended CEDE (XCEDE) latency settings of pseries firmware, parsed into
//! cpuidle states.
//!
//! `ibm,get-system-parameter` with token 45 ("Cede Latency Settings
//! Information", PAPR 7.3.16) returns a big-endian buffer: a 16-bit payload
//! size, then the payload: one byte holding the record size minus one, the
//! records, and a NUL.  A record is 10 bytes: the cede latency hint, the
//! maximum wake-up latency in timebase ticks (64 bits) and whether the state
//! wakes on external interrupts.
//!
//! This file is pure: no kernel calls, no allocation, no panics on any input
//! (every access is bounds-checked).  The pseries driver, its KUnit suite,
//! the host tests and the host fuzzer all compile it; the payload builders
//! and checkers of [`testing`] only the last three (KUnit option, `cfg(test)`
//! or the host crate's `xcede_host_testing`), not a production module.

/// Size of one record in the only layout defined so far.
pub const RECORD_SIZE: usize = 10;
/// Records the driver accepts (the C driver's buffer holds 16).
pub const MAX_RECORDS: usize = 16;
/// cpuidle holds 10 states: snooze, CEDE and at most 8 XCEDE states.
pub const MAX_XCEDE_STATES: usize = 8;
/// Added to the latency of a state that stops the timer: waking the CPU
/// for its timer takes an IPI from the broadcast timer.
pub const TIMER_OFFLOAD_US: u32 = 10;
/// Target residency is 10x the exit latency (the C driver's rule).
pub const RESIDENCY_FACTOR: u32 = 10;
/// Largest latency kept, so that latency + offload and 10x residency fit
/// in 32 bits.
pub const MAX_LATENCY_US: u32 = (u32::MAX - TIMER_OFFLOAD_US) / RESIDENCY_FACTOR;

/// One cede latency setting record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Cede latency specifier value (the hint written to the lppaca).
    pub hint: u8,
    /// Maximum wake-up latency, timebase ticks.
    pub latency_ticks: u64,
    /// Whether an external interrupt wakes the CPU from this state.
    pub wake_on_irqs: bool,
}

/// Why a buffer was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Shorter than the payload size field and the record-size byte.
    Short(usize),
    /// The payload size claims more bytes than the buffer holds.
    PayloadTooLarge {
        /// Payload size from the buffer.
        payload: usize,
        /// Bytes after the payload size field.
        available: usize,
    },
    /// The payload cannot hold the record-size byte.
    PayloadTooSmall(usize),
    /// A record size other than [`RECORD_SIZE`].
    RecordSize(usize),
    /// The records do not fill the payload (a truncated record).
    Truncated(usize),
    /// More than [`MAX_RECORDS`] records.
    TooManyRecords(usize),
}

/// The records of one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Records {
    recs: [Record; MAX_RECORDS],
    n: usize,
}

impl Records {
    /// The records, in firmware order.
    pub fn as_slice(&self) -> &[Record] {
        &self.recs[..self.n]
    }
}

fn be64(b: &[u8]) -> u64 {
    let mut v = 0u64;
    for &x in b.iter().take(8) {
        v = (v << 8) | u64::from(x);
    }
    v
}

/// The record in the [`RECORD_SIZE`] bytes of `r`.
fn record(r: &[u8]) -> Record {
    Record {
        hint: r.first().copied().unwrap_or(0),
        latency_ticks: be64(r.get(1..9).unwrap_or(&[])),
        wake_on_irqs: r.get(9).is_some_and(|&b| b != 0),
    }
}

/// Parses the buffer `ibm,get-system-parameter` filled (token 45).
///
/// The payload normally ends with a NUL after the records; a payload
/// without it is accepted too (its size then covers exactly the record-size
/// byte and the records).  Anything else that does not add up is an error.
pub fn parse(buf: &[u8]) -> Result<Records, ParseError> {
    if buf.len() < 3 {
        return Err(ParseError::Short(buf.len()));
    }
    let payload = usize::from(u16::from_be_bytes([buf[0], buf[1]]));
    let body = &buf[2..];
    if payload > body.len() {
        return Err(ParseError::PayloadTooLarge {
            payload,
            available: body.len(),
        });
    }
    if payload < 1 {
        return Err(ParseError::PayloadTooSmall(payload));
    }
    let body = &body[..payload];
    let size = usize::from(body[0]) + 1;
    if size != RECORD_SIZE {
        return Err(ParseError::RecordSize(size));
    }
    let rest = &body[1..];
    let records = if rest.len() % RECORD_SIZE == 0 {
        rest
    } else if rest.len() % RECORD_SIZE == 1 && rest.last() == Some(&0) {
        &rest[..rest.len() - 1]
    } else {
        return Err(ParseError::Truncated(rest.len()));
    };
    let n = records.len() / RECORD_SIZE;
    if n > MAX_RECORDS {
        return Err(ParseError::TooManyRecords(n));
    }
    let mut out = Records {
        recs: [Record::default(); MAX_RECORDS],
        n,
    };
    for (slot, r) in out.recs.iter_mut().zip(records.chunks_exact(RECORD_SIZE)) {
        *slot = record(r);
    }
    Ok(out)
}

/// The whole records the C driver reads in a buffer that [`parse`]
/// refuses, for CEDE(0)'s fix-up alone.
///
/// `cpuidle-pseries.c` gives up only on a record size other than 10 (no
/// records here either; a buffer too short to hold the size byte counts as
/// such); otherwise it reads `(payload size - 2) / 10` records whatever the
/// buffer holds.  Here: the whole records after the size byte that both
/// the payload size and the buffer cover, at most [`MAX_RECORDS`] (what the
/// C driver's buffer has room for, so all the firmware can write into it).
/// Where C reads beyond its buffer (a payload size beyond it, below 2, or
/// more than 16 records) it reads memory that is not the firmware's; those
/// bytes give no record here.  A payload of whole records without its NUL
/// keeps its last record, as in [`parse`].
fn whole_records(buf: &[u8]) -> Records {
    let mut out = Records {
        recs: [Record::default(); MAX_RECORDS],
        n: 0,
    };
    let [p0, p1, size, rest @ ..] = buf else {
        return out;
    };
    if usize::from(*size) + 1 != RECORD_SIZE {
        return out;
    }
    let claimed = usize::from(u16::from_be_bytes([*p0, *p1])).saturating_sub(1) / RECORD_SIZE;
    let n = claimed.min(rest.len() / RECORD_SIZE).min(MAX_RECORDS);
    let whole = rest.chunks_exact(RECORD_SIZE).take(n);
    for (slot, r) in out.recs.iter_mut().zip(whole) {
        *slot = record(r);
    }
    out.n = n;
    out
}

/// Fastest timebase accepted, Hz (POWER's is 512 MHz): keeps the
/// conversion in 64-bit arithmetic.
pub const MAX_TB_HZ: u64 = 1 << 34;

/// Timebase ticks to microseconds as the kernel does it: ticks to
/// nanoseconds (rounded down, as `tb_to_ns()`), then `DIV_ROUND_UP` to
/// microseconds.  `None` for a timebase frequency of 0 or above
/// [`MAX_TB_HZ`], or nanoseconds beyond 64 bits.
pub fn ticks_to_us_wide(ticks: u64, tb_hz: u64) -> Option<u64> {
    if tb_hz == 0 || tb_hz > MAX_TB_HZ {
        return None;
    }
    // ticks * 10^9 / tb without 128-bit division: the remainder is below
    // 2^34, so remainder * 10^9 fits in 64 bits.
    let whole = (ticks / tb_hz).checked_mul(1_000_000_000)?;
    let frac = (ticks % tb_hz) * 1_000_000_000 / tb_hz;
    let ns = whole.checked_add(frac)?;
    Some(ns.div_ceil(1000))
}

/// [`ticks_to_us_wide`], and `None` above [`MAX_LATENCY_US`] too: the
/// latency of an XCEDE state.
pub fn ticks_to_us(ticks: u64, tb_hz: u64) -> Option<u32> {
    ticks_to_us_wide(ticks, tb_hz)
        .and_then(|us| u32::try_from(us).ok())
        .filter(|&us| us <= MAX_LATENCY_US)
}

/// CEDE(0)'s exit latency and target residency from `records`, as the C
/// driver's POWER10 fix-up (`fixup_cede0_latency()`) makes them: the lowest
/// latency of any record, responsive or not, that is neither 0 us (not
/// trusted) nor `UINT_MAX` us or more (C's starting minimum), and a
/// residency of 10x, saturated where C's would wrap.  `None` if no record
/// qualifies: CEDE keeps its 10/100 us.
pub fn cede0_fixup(records: &[Record], tb_hz: u64) -> Option<(u32, u32)> {
    records
        .iter()
        .filter_map(|r| ticks_to_us_wide(r.latency_ticks, tb_hz))
        .filter_map(|us| u32::try_from(us).ok())
        .filter(|&us| us != 0 && us != u32::MAX)
        .min()
        .map(|us| (us, us.saturating_mul(RESIDENCY_FACTOR)))
}

/// Why a record gives no cpuidle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Wake-up latency rounds to 0 us: firmware must take some time to
    /// dispatch the CPU again, so the record is not trusted.
    ZeroLatency,
    /// Latency too large for the cpuidle fields.
    LatencyOutOfRange,
    /// Only `H_PROD` wakes the CPU: cpuidle cannot use the state.
    NotIrqResponsive,
    /// Hint 0 is CEDE itself (state 1); the record only fixes up its
    /// latency.
    HintZero,
    /// An earlier record has the same hint.
    DuplicateHint,
    /// More states than cpuidle holds; the deepest are dropped.
    TooManyStates,
}

impl Skip {
    /// Whether the skip deserves a warning (firmware data that looks wrong)
    /// rather than an information message.
    pub fn is_warning(self) -> bool {
        matches!(
            self,
            Skip::ZeroLatency | Skip::LatencyOutOfRange | Skip::DuplicateHint | Skip::TooManyStates
        )
    }
}

/// An XCEDE cpuidle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XState {
    /// Cede latency hint to set around `H_CEDE`.
    pub hint: u8,
    /// Exit latency, us (the record's, plus [`TIMER_OFFLOAD_US`]).
    pub exit_latency_us: u32,
    /// Target residency, us.
    pub target_residency_us: u32,
    /// `CPUIDLE_FLAG_TIMER_STOP`: with a hint above 0 the hypervisor may
    /// stop the decrementer (PAPR 14.14.1).
    pub timer_stop: bool,
    name: [u8; 16],
}

impl XState {
    /// `XCEDE<hint>`, NUL-terminated.
    pub fn name_with_nul(&self) -> &[u8] {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(15);
        &self.name[..=end]
    }

    /// `XCEDE<hint>` without the NUL.
    pub fn name(&self) -> &[u8] {
        let n = self.name_with_nul();
        &n[..n.len() - 1]
    }
}

fn xcede_name(hint: u8) -> [u8; 16] {
    let mut name = [0u8; 16];
    name[..5].copy_from_slice(b"XCEDE");
    let digits = [hint / 100, hint / 10 % 10, hint % 10];
    let first = if hint >= 100 {
        0
    } else if hint >= 10 {
        1
    } else {
        2
    };
    for (i, d) in digits[first..].iter().enumerate() {
        name[5 + i] = b'0' + d;
    }
    name
}

/// The states built from a record set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// CEDE(0)'s exit latency and residency ([`cede0_fixup`]), if any
    /// record gives them.
    pub cede0: Option<(u32, u32)>,
    /// Why the buffer was refused ([`plan_buffer`]): then there are no
    /// XCEDE states and `cede0` comes from the records C would still read.
    pub malformed: Option<ParseError>,
    states: [Option<XState>; MAX_XCEDE_STATES],
    // (hint, why) of each record, by record index, that gave no state
    skipped: [Option<(u8, Skip)>; MAX_RECORDS],
}

impl Plan {
    /// The XCEDE states, ordered by exit latency (then hint).
    pub fn states(&self) -> impl Iterator<Item = &XState> + '_ {
        self.states.iter().flatten()
    }

    /// The records that gave no state: (record index, hint, why).
    pub fn skipped(&self) -> impl Iterator<Item = (usize, u8, Skip)> + '_ {
        self.skipped
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|(hint, why)| (i, hint, why)))
    }
}

/// Builds the CEDE fix-up and the XCEDE states from `records` for a
/// timebase of `tb_hz`.
///
/// Records that wake only on `H_PROD`, have a zero or out-of-range latency,
/// repeat an earlier hint or have hint 0 give no state; the states are
/// ordered by exit latency and at most [`MAX_XCEDE_STATES`] are kept (the
/// shallowest).  CEDE(0) is fixed up as the C driver does it
/// ([`cede0_fixup`]); every XCEDE state is then at least as deep.
pub fn plan(records: &Records, tb_hz: u64) -> Plan {
    // Small locals only: this runs at module load and under KUnit, on
    // kernel stacks (8 KiB on some configurations).
    let mut p = Plan {
        cede0: cede0_fixup(records.as_slice(), tb_hz),
        malformed: None,
        states: [None; MAX_XCEDE_STATES],
        skipped: [None; MAX_RECORDS],
    };
    let recs = records.as_slice();
    // each record's exit latency if it gives a state, 0 if not
    let mut lat = [0u32; MAX_RECORDS];
    // the hints seen, a bit each
    let mut seen = [0u64; 4];
    for (i, r) in recs.iter().enumerate() {
        let hint = usize::from(r.hint);
        let why = match ticks_to_us(r.latency_ticks, tb_hz) {
            Some(0) => Skip::ZeroLatency,
            None => Skip::LatencyOutOfRange,
            Some(_) if !r.wake_on_irqs => Skip::NotIrqResponsive,
            Some(_) if hint == 0 => Skip::HintZero,
            Some(_) if seen[hint / 64] & (1 << (hint % 64)) != 0 => Skip::DuplicateHint,
            Some(us) => {
                seen[hint / 64] |= 1 << (hint % 64);
                lat[i] = us + TIMER_OFFLOAD_US;
                continue;
            }
        };
        p.skipped[i] = Some((r.hint, why));
    }
    // Insertion sort of the candidates' indices by (latency, hint).
    let key = |i: usize| (lat[i], recs[i].hint);
    let mut order = [0usize; MAX_RECORDS];
    let mut n = 0;
    for i in (0..recs.len()).filter(|&i| lat[i] != 0) {
        let mut j = n;
        while j > 0 && key(order[j - 1]) > key(i) {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = i;
        n += 1;
    }
    for (k, &i) in order[..n].iter().enumerate() {
        let hint = recs[i].hint;
        if k < MAX_XCEDE_STATES {
            p.states[k] = Some(XState {
                hint,
                exit_latency_us: lat[i],
                target_residency_us: lat[i] * RESIDENCY_FACTOR,
                timer_stop: true,
                name: xcede_name(hint),
            });
        } else {
            p.skipped[i] = Some((hint, Skip::TooManyStates));
        }
    }
    p
}

/// Plans the states for the buffer `ibm,get-system-parameter` filled.
///
/// A buffer [`parse`] accepts gives [`plan`]'s states.  One it refuses
/// gives no XCEDE state, but CEDE(0) is still fixed up from the records the
/// C driver reads in it ([`whole_records`]), as `cpuidle-pseries.c` fixes
/// it up from any answer with the expected record size.
pub fn plan_buffer(buf: &[u8], tb_hz: u64) -> Plan {
    match parse(buf) {
        Ok(records) => plan(&records, tb_hz),
        Err(e) => Plan {
            cede0: cede0_fixup(whole_records(buf).as_slice(), tb_hz),
            malformed: Some(e),
            states: [None; MAX_XCEDE_STATES],
            skipped: [None; MAX_RECORDS],
        },
    }
}

/// Why a hex string was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexError {
    /// Not a hex digit (byte offset).
    BadDigit(usize),
    /// An odd number of digits.
    OddLength,
    /// More bytes than the output buffer holds.
    TooLong,
}

/// Decodes a hex string (digits only; one trailing newline allowed) into
/// `out`, returning the number of bytes written.
pub fn decode_hex(s: &[u8], out: &mut [u8]) -> Result<usize, HexError> {
    let s = s.strip_suffix(b"\n").unwrap_or(s);
    if s.len() % 2 != 0 {
        return Err(HexError::OddLength);
    }
    if s.len() / 2 > out.len() {
        return Err(HexError::TooLong);
    }
    let digit = |i: usize| -> Result<u8, HexError> {
        let c = s[i];
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(HexError::BadDigit(i)),
        }
    };
    for (k, o) in out.iter_mut().take(s.len() / 2).enumerate() {
        *o = (digit(2 * k)? << 4) | digit(2 * k + 1)?;
    }
    Ok(s.len() / 2)
}

/// Builders and checkers of test payloads, shared by the KUnit suite, the
/// host tests and the fuzzer; not built into a production module.
#[cfg(any(test, xcede_host_testing, CONFIG_PSERIES_CPUIDLE_RUST_KUNIT_TEST))]
pub mod testing {
    use super::*;

    /// The POWER timebase, 512 MHz: 512 ticks per us.
    pub const TB_HZ: u64 = 512_000_000;

    /// Writes a well-formed buffer holding `recs` (hint, latency in ticks,
    /// wakes on IRQs) into `out`; returns its length.
    pub fn build(recs: &[(u8, u64, bool)], out: &mut [u8]) -> usize {
        let payload = 1 + recs.len() * RECORD_SIZE + 1;
        out[..2].copy_from_slice(&(payload as u16).to_be_bytes());
        out[2] = (RECORD_SIZE - 1) as u8;
        let mut at = 3;
        for &(hint, ticks, irq) in recs {
            out[at] = hint;
            out[at + 1..at + 9].copy_from_slice(&ticks.to_be_bytes());
            out[at + 9] = u8::from(irq);
            at += RECORD_SIZE;
        }
        out[at] = 0;
        at + 1
    }

    /// The three records the QEMU test injects: hints 1..3 waking in 2, 20
    /// and 100 us.
    pub const THREE: [(u8, u64, bool); 3] = [
        (1, 2 * 512, true),
        (2, 20 * 512, true),
        (3, 100 * 512, true),
    ];

    /// CEDE(0)'s fix-up as `cpuidle-pseries.c` computes it from `buf`,
    /// written apart from the driver's code: record size 10 or nothing,
    /// then `(payload size - 2) / 10` records read at their offsets (only
    /// those the buffer holds, at most the 16 C's buffer has room for), the
    /// lowest latency neither 0 nor `UINT_MAX` us or more.  With the
    /// driver's one leniency: a payload of whole records without its NUL
    /// keeps its last record.
    pub fn c_cede0(buf: &[u8], tb_hz: u64) -> Option<(u32, u32)> {
        if buf.len() < 3 || buf[2] != 9 {
            return None;
        }
        let payload = usize::from(buf[0]) << 8 | usize::from(buf[1]);
        let mut n = if payload < 2 { 0 } else { (payload - 2) / 10 };
        if payload >= 1 && (payload - 1) % 10 == 0 {
            n = (payload - 1) / 10;
        }
        let n = n.min((buf.len() - 3) / 10).min(16);
        let mut min = u64::from(u32::MAX);
        for i in 0..n {
            let at = 3 + 10 * i + 1;
            let ticks = be64(&buf[at..at + 8]);
            match ticks_to_us_wide(ticks, tb_hz) {
                Some(us) if us != 0 && us < min => min = us,
                _ => {}
            }
        }
        let min = u32::try_from(min).ok().filter(|&m| m != u32::MAX)?;
        Some((min, min.saturating_mul(10)))
    }

    /// Checks every invariant the driver relies on, for any input: never
    /// panics, at most 16 records, states sorted and unique, latencies in
    /// range, latency <= residency, CEDE(0) no deeper than any state and
    /// fixed up as C does it ([`c_cede0`]), malformed or not; no state from
    /// a malformed buffer.
    pub fn check_invariants(buf: &[u8], tb_hz: u64) -> bool {
        let whole = plan_buffer(buf, tb_hz);
        if whole.cede0 != c_cede0(buf, tb_hz) {
            return false;
        }
        let Ok(recs) = parse(buf) else {
            return whole.malformed.is_some() && whole.states().count() == 0;
        };
        if recs.as_slice().len() > MAX_RECORDS {
            return false;
        }
        let p = plan(&recs, tb_hz);
        if p != whole {
            return false;
        }
        let mut prev: Option<&XState> = None;
        let mut count = 0;
        for s in p.states() {
            count += 1;
            if s.hint == 0
                || !s.timer_stop
                || s.exit_latency_us > s.target_residency_us
                || s.exit_latency_us < TIMER_OFFLOAD_US + 1
                || s.name().len() < 6
            {
                return false;
            }
            if let Some(q) = prev {
                if (q.exit_latency_us, q.hint) > (s.exit_latency_us, s.hint) || q.hint == s.hint {
                    return false;
                }
            }
            if let Some((lat, res)) = p.cede0 {
                if lat > s.exit_latency_us || res > s.target_residency_us {
                    return false;
                }
            } else {
                return false;
            }
            prev = Some(s);
        }
        count <= MAX_XCEDE_STATES && count + p.skipped().count() <= recs.as_slice().len()
    }
}

#[cfg(any(test, CONFIG_PSERIES_CPUIDLE_RUST_KUNIT_TEST))]
#[cfg_attr(not(test), ::kernel::macros::kunit_tests(pseries_xcede))]
mod tests {
    use super::testing::*;
    use super::*;

    fn buf(recs: &[(u8, u64, bool)]) -> ([u8; 200], usize) {
        let mut b = [0u8; 200];
        let n = build(recs, &mut b);
        (b, n)
    }

    #[test]
    fn three_records_give_the_shared_table() -> Result<(), ParseError> {
        let (b, n) = buf(&THREE);
        let r = parse(&b[..n])?;
        assert_eq!(r.as_slice().len(), 3);
        let p = plan(&r, TB_HZ);
        assert_eq!(p.cede0, Some((2, 20)));
        let got: [(u32, u32); 3] = {
            let mut g = [(0, 0); 3];
            for (slot, s) in g.iter_mut().zip(p.states()) {
                *slot = (s.exit_latency_us, s.target_residency_us);
            }
            g
        };
        assert_eq!(got, [(12, 120), (30, 300), (110, 1100)]);
        let names: [&[u8]; 3] = [b"XCEDE1", b"XCEDE2", b"XCEDE3"];
        for (s, want) in p.states().zip(names) {
            assert_eq!(s.name(), want);
            assert!(s.timer_stop);
        }
        assert_eq!(p.skipped().count(), 0);
        Ok(())
    }

    #[test]
    fn one_and_sixteen_records() -> Result<(), ParseError> {
        let (b, n) = buf(&[(7, 5120, true)]);
        let p = plan(&parse(&b[..n])?, TB_HZ);
        assert_eq!(p.cede0, Some((10, 100)));
        let Some(s) = p.states().next() else {
            return Err(ParseError::Short(0));
        };
        assert_eq!(
            (s.hint, s.exit_latency_us, s.target_residency_us),
            (7, 20, 200)
        );
        assert_eq!(s.name_with_nul(), b"XCEDE7\0");

        let mut recs = [(0u8, 0u64, true); 16];
        for (i, r) in recs.iter_mut().enumerate() {
            // hints 1..16, latencies descending so the plan must sort
            *r = (i as u8 + 1, (16 - i as u64) * 512, true);
        }
        let (b, n) = buf(&recs);
        let r = parse(&b[..n])?;
        assert_eq!(r.as_slice().len(), 16);
        let p = plan(&r, TB_HZ);
        assert_eq!(p.cede0, Some((1, 10)));
        assert_eq!(p.states().count(), MAX_XCEDE_STATES);
        let mut lat = 0;
        for s in p.states() {
            assert!(s.exit_latency_us > lat);
            lat = s.exit_latency_us;
        }
        // the 8 deepest are dropped, with a reason each
        assert_eq!(
            p.skipped().filter(|s| s.2 == Skip::TooManyStates).count(),
            16 - MAX_XCEDE_STATES
        );
        assert!(check_invariants(&b[..n], TB_HZ));
        Ok(())
    }

    #[test]
    fn malformed_buffers_are_errors() {
        let (mut b, n) = buf(&THREE);
        assert_eq!(parse(&b[..2]), Err(ParseError::Short(2)));
        // wrong record size
        b[2] = 10;
        assert_eq!(parse(&b[..n]), Err(ParseError::RecordSize(11)));
        b[2] = 9;
        // truncated: buffer ends before the payload does
        assert_eq!(
            parse(&b[..n - 5]),
            Err(ParseError::PayloadTooLarge {
                payload: n - 2,
                available: n - 7
            })
        );
        // payload size larger than the buffer
        b[0] = 0xff;
        assert!(matches!(
            parse(&b[..n]),
            Err(ParseError::PayloadTooLarge { .. })
        ));
        b[0] = 0;
        // a record cut short inside the payload
        b[1] = (n - 2 - 4) as u8;
        assert_eq!(parse(&b[..n]), Err(ParseError::Truncated(n - 2 - 4 - 1)));
        // empty payload
        b[1] = 0;
        assert_eq!(parse(&b[..n]), Err(ParseError::PayloadTooSmall(0)));
        // 17 records
        let recs = [(1u8, 512u64, true); 17];
        let mut big = [0u8; 200];
        let len = build(&recs, &mut big);
        assert_eq!(parse(&big[..len]), Err(ParseError::TooManyRecords(17)));
        // every prefix of a good buffer is an error or a valid parse
        let (b, n) = buf(&THREE);
        for cut in 0..n {
            assert!(check_invariants(&b[..cut], TB_HZ));
        }
    }

    #[test]
    fn malformed_buffers_keep_the_cede_fixup() {
        let fixup = |b: &[u8]| {
            let p = plan_buffer(b, TB_HZ);
            assert!(p.malformed.is_some());
            assert_eq!(p.states().count(), 0);
            assert_eq!(p.skipped().count(), 0);
            assert_eq!(p.cede0, c_cede0(b, TB_HZ));
            p.cede0
        };
        let (b, n) = buf(&THREE);
        // the second record cut short inside the payload: the first (2 us)
        let mut t = b;
        t[1] = 15;
        assert_eq!(parse(&t[..17]), Err(ParseError::Truncated(14)));
        assert_eq!(fixup(&t[..17]), Some((2, 20)));
        // a payload size beyond the buffer: the whole records it holds
        let mut t = b;
        t[0] = 0x20;
        assert_eq!(fixup(&t[..n]), Some((2, 20)));
        assert_eq!(fixup(&t[..14]), Some((2, 20)));
        assert_eq!(fixup(&t[..12]), None);
        // 17 records, latencies descending: the 16 C's buffer holds
        let mut recs = [(0u8, 0u64, true); 17];
        for (i, r) in recs.iter_mut().enumerate() {
            *r = (i as u8 + 1, (17 - i as u64) * 512, true);
        }
        let mut big = [0u8; 200];
        let len = build(&recs, &mut big);
        assert_eq!(fixup(&big[..len]), Some((2, 20)));
        // C gives up on a record size other than 10, and there is nothing
        // to read in a payload below the records
        let mut t = b;
        t[2] = 10;
        assert_eq!(fixup(&t[..n]), None);
        assert_eq!(fixup(&b[..2]), None);
        let mut t = b;
        t[0] = 0;
        t[1] = 0;
        assert_eq!(fixup(&t[..n]), None);
    }

    /// CEDE(0)'s fix-up planned from `recs` (not inlined: a case holding
    /// several buffers and plans at once gets a frame above
    /// `CONFIG_FRAME_WARN`).
    #[inline(never)]
    fn cede0_of(recs: &[(u8, u64, bool)]) -> Result<Option<(u32, u32)>, ParseError> {
        let (b, n) = buf(recs);
        Ok(plan(&parse(&b[..n])?, TB_HZ).cede0)
    }

    #[test]
    fn out_of_range_latencies_still_fix_up_cede() -> Result<(), ParseError> {
        let us = |us: u64| us * 512;
        // beyond an XCEDE state's range, below C's UINT_MAX: CEDE takes
        // it, its residency saturates
        let (b, n) = buf(&[(1, us(500_000_000), true)]);
        let p = plan_buffer(&b[..n], TB_HZ);
        assert_eq!(p.cede0, Some((500_000_000, u32::MAX)));
        assert_eq!(p.states().count(), 0);
        assert_eq!(p.skipped().next(), Some((0, 1, Skip::LatencyOutOfRange)));
        assert_eq!(
            cede0_of(&[(1, us(u64::from(u32::MAX) - 1), true)])?,
            Some((u32::MAX - 1, u32::MAX))
        );
        // UINT_MAX us and beyond: not below C's starting minimum
        assert_eq!(
            cede0_of(&[(1, us(u64::from(u32::MAX)), true), (2, u64::MAX, true)])?,
            None
        );
        // the lowest still wins when it is in range
        let (b, n) = buf(&[(1, us(500_000_000), true), (2, us(7), true)]);
        let p = plan(&parse(&b[..n])?, TB_HZ);
        assert_eq!(p.cede0, Some((7, 70)));
        assert!(check_invariants(&b[..n], TB_HZ));
        Ok(())
    }

    #[test]
    fn odd_records_are_skipped() -> Result<(), ParseError> {
        let (b, n) = buf(&[
            (1, 0, true),         // zero latency
            (2, 200, true),       // < 1 us: rounds up to 1 us, kept
            (3, 10 * 512, false), // not IRQ-responsive
            (2, 30 * 512, true),  // duplicate hint
            (0, 5 * 512, true),   // CEDE itself
            (5, u64::MAX, true),  // out of range
            (6, 3 * 512, true),   // kept, sorted after hint 2
        ]);
        let p = plan(&parse(&b[..n])?, TB_HZ);
        let mut why = [None; 7];
        for (i, _, w) in p.skipped() {
            why[i] = Some(w);
        }
        assert_eq!(
            why,
            [
                Some(Skip::ZeroLatency),
                None,
                Some(Skip::NotIrqResponsive),
                Some(Skip::DuplicateHint),
                Some(Skip::HintZero),
                Some(Skip::LatencyOutOfRange),
                None
            ]
        );
        let hints: [u8; 2] = {
            let mut h = [0; 2];
            for (slot, s) in h.iter_mut().zip(p.states()) {
                *slot = s.hint;
            }
            h
        };
        assert_eq!(hints, [2, 6]);
        assert_eq!(p.states().count(), 2);
        // lowest non-zero latency of any record, responsive or not
        assert_eq!(p.cede0, Some((1, 10)));
        Ok(())
    }

    #[test]
    fn unsorted_latencies_are_ordered() -> Result<(), ParseError> {
        let (b, n) = buf(&[
            (3, 100 * 512, true),
            (1, 2 * 512, true),
            (2, 20 * 512, true),
        ]);
        let p = plan(&parse(&b[..n])?, TB_HZ);
        let mut h = [0u8; 3];
        for (slot, s) in h.iter_mut().zip(p.states()) {
            *slot = s.hint;
        }
        assert_eq!(h, [1, 2, 3]);
        Ok(())
    }

    #[test]
    fn ticks_round_up_to_microseconds() {
        assert_eq!(ticks_to_us(0, TB_HZ), Some(0));
        assert_eq!(ticks_to_us(1, TB_HZ), Some(1));
        assert_eq!(ticks_to_us(511, TB_HZ), Some(1));
        assert_eq!(ticks_to_us(512, TB_HZ), Some(1));
        assert_eq!(ticks_to_us(513, TB_HZ), Some(2));
        assert_eq!(ticks_to_us(1024, TB_HZ), Some(2));
        // below one nanosecond rounds to 0 ns first, as tb_to_ns() does
        assert_eq!(ticks_to_us(1, 2_000_000_000), Some(0));
        assert_eq!(ticks_to_us(5, 0), None);
        assert_eq!(ticks_to_us(5, MAX_TB_HZ + 1), None);
        assert_eq!(ticks_to_us(MAX_TB_HZ - 1, MAX_TB_HZ), Some(1_000_000));
        let max = u64::from(MAX_LATENCY_US) * 512;
        assert_eq!(ticks_to_us(max, TB_HZ), Some(MAX_LATENCY_US));
        assert_eq!(ticks_to_us(max + 1, TB_HZ), None);
        assert_eq!(ticks_to_us(u64::MAX, TB_HZ), None);
    }

    #[test]
    fn no_terminator_is_accepted_and_hex_decodes() -> Result<(), ParseError> {
        let (b, n) = buf(&THREE);
        let mut c = b;
        c[1] -= 1; // payload without its NUL
        assert_eq!(parse(&c[..n - 1])?.as_slice().len(), 3);
        let mut out = [0u8; 4];
        assert_eq!(decode_hex(b"00ff1A\n", &mut out), Ok(3));
        assert_eq!(&out[..3], &[0, 0xff, 0x1a]);
        assert_eq!(decode_hex(b"0g", &mut out), Err(HexError::BadDigit(1)));
        assert_eq!(decode_hex(b"abc", &mut out), Err(HexError::OddLength));
        assert_eq!(decode_hex(b"0011223344", &mut out), Err(HexError::TooLong));
        assert_eq!(xcede_name(255)[..9], *b"XCEDE255\0");
        assert_eq!(xcede_name(10)[..8], *b"XCEDE10\0");
        Ok(())
    }
}
