// SPDX-License-Identifier: GPL-2.0

//! Grouped bar charts written as PNG, with no dependencies: an RGB canvas,
//! a 5x7 bitmap font and a PNG encoder (deflate with the fixed codes).

use std::io;

const W: usize = 1200;
const H: usize = 440;

struct Canvas {
    px: Vec<[u8; 3]>,
}

impl Canvas {
    fn new() -> Self {
        Self {
            px: vec![[255, 255, 255]; W * H],
        }
    }

    fn rect(&mut self, x0: usize, y0: usize, x1: usize, y1: usize, c: [u8; 3]) {
        for y in y0.min(H)..y1.min(H) {
            for x in x0.min(W)..x1.min(W) {
                self.px[y * W + x] = c;
            }
        }
    }

    fn text(&mut self, mut x: usize, y: usize, s: &str, c: [u8; 3]) {
        for ch in s.chars() {
            let g = glyph(ch.to_ascii_lowercase());
            for (row, bits) in g.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        self.rect(x + col, y + row, x + col + 1, y + row + 1, c);
                    }
                }
            }
            x += 6;
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity((W * 3 + 1) * H);
        for y in 0..H {
            raw.push(0);
            for x in 0..W {
                raw.extend_from_slice(&self.px[y * W + x]);
            }
        }
        let mut z = vec![0x78, 0x01];
        z.extend_from_slice(&deflate_fixed(&raw, W * 3 + 1));
        z.extend_from_slice(&adler32(&raw).to_be_bytes());
        let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&(W as u32).to_be_bytes());
        ihdr.extend_from_slice(&(H as u32).to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr);
        chunk(&mut out, b"IDAT", &z);
        chunk(&mut out, b"IEND", &[]);
        out
    }
}

/// LSB-first bit writer for deflate.
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, v: u32, n: u32) {
        self.acc |= v << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code: most significant bit first.
    fn code(&mut self, code: u32, n: u32) {
        let mut r = 0;
        for i in 0..n {
            r |= ((code >> i) & 1) << (n - 1 - i);
        }
        self.put(r, n);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Literal/length symbol with deflate's fixed Huffman code (RFC 1951 3.2.6).
fn fixed_lit(b: &mut Bits, sym: u32) {
    match sym {
        0..=143 => b.code(0x30 + sym, 8),
        144..=255 => b.code(0x190 + sym - 144, 9),
        256..=279 => b.code(sym - 256, 7),
        _ => b.code(0xc0 + sym - 280, 8),
    }
}

const LEN_BASE: [u32; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u32; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u32; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u32; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// One deflate block with the fixed codes; matches only at distance 1, 3
/// (a repeated RGB pixel) and one row: enough for flat-colour charts.
fn deflate_fixed(d: &[u8], row: usize) -> Vec<u8> {
    let mut b = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // last block
    b.put(1, 2); // fixed Huffman
    let mut i = 0;
    while i < d.len() {
        let (mut best, mut dist) = (0usize, 0usize);
        for back in [1usize, 3, row] {
            if back > i || back > 32768 {
                continue;
            }
            let mut l = 0;
            while l < 258 && i + l < d.len() && d[i + l] == d[i + l - back] {
                l += 1;
            }
            if l > best {
                best = l;
                dist = back;
            }
        }
        if best < 3 {
            fixed_lit(&mut b, u32::from(d[i]));
            i += 1;
            continue;
        }
        let k = LEN_BASE
            .iter()
            .rposition(|&x| x as usize <= best)
            .unwrap_or(0);
        fixed_lit(&mut b, 257 + k as u32);
        b.put(best as u32 - LEN_BASE[k], LEN_EXTRA[k]);
        let j = DIST_BASE
            .iter()
            .rposition(|&x| x as usize <= dist)
            .unwrap_or(0);
        b.code(j as u32, 5);
        b.put(dist as u32 - DIST_BASE[j], DIST_EXTRA[j]);
        i += best;
    }
    fixed_lit(&mut b, 256);
    b.finish()
}

fn adler32(d: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in d {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn crc32(d: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &x in d {
        c ^= u32::from(x);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut c = kind.to_vec();
    c.extend_from_slice(data);
    out.extend_from_slice(&c);
    out.extend_from_slice(&crc32(&c).to_be_bytes());
}

/// 5x7 glyphs, one byte per row, bit 4 leftmost.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        'a' => [0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f],
        'b' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1e],
        'c' => [0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e],
        'd' => [0x01, 0x01, 0x0d, 0x13, 0x11, 0x11, 0x0f],
        'e' => [0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e],
        'f' => [0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08],
        'g' => [0x00, 0x0f, 0x11, 0x11, 0x0f, 0x01, 0x0e],
        'h' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11],
        'i' => [0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e],
        'j' => [0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0c],
        'k' => [0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12],
        'l' => [0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e],
        'm' => [0x00, 0x00, 0x1a, 0x15, 0x15, 0x11, 0x11],
        'n' => [0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11],
        'o' => [0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e],
        'p' => [0x00, 0x00, 0x1e, 0x11, 0x1e, 0x10, 0x10],
        'q' => [0x00, 0x00, 0x0d, 0x13, 0x0f, 0x01, 0x01],
        'r' => [0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10],
        's' => [0x00, 0x00, 0x0e, 0x10, 0x0e, 0x01, 0x1e],
        't' => [0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06],
        'u' => [0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d],
        'v' => [0x00, 0x00, 0x11, 0x11, 0x11, 0x0a, 0x04],
        'w' => [0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0a],
        'x' => [0x00, 0x00, 0x11, 0x0a, 0x04, 0x0a, 0x11],
        'y' => [0x00, 0x00, 0x11, 0x11, 0x0f, 0x01, 0x0e],
        'z' => [0x00, 0x00, 0x1f, 0x02, 0x04, 0x08, 0x1f],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c],
        '-' => [0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        _ => [0; 7],
    }
}

const COLORS: &[[u8; 3]] = &[
    [31, 119, 180],
    [174, 199, 232],
    [255, 127, 14],
    [44, 160, 44],
    [148, 103, 189],
    [197, 176, 213],
    [214, 39, 40],
    [152, 223, 138],
];

/// Writes a grouped bar chart: one group per category, one bar per series.
pub fn bar_chart(
    path: &str,
    title: &str,
    categories: &[&str],
    series: &[&str],
    values: &[Vec<f64>],
) -> io::Result<()> {
    let mut c = Canvas::new();
    let (left, right, top, bottom) = (50usize, W - 10, 40usize, H - 80);
    c.text(left, 10, title, [0, 0, 0]);
    let max = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9);
    c.text(2, top, &format!("{max:.3}"), [0, 0, 0]);
    c.text(2, bottom - 7, "0", [0, 0, 0]);
    c.rect(left - 2, top, left - 1, bottom, [0, 0, 0]);
    c.rect(left - 2, bottom, right, bottom + 1, [0, 0, 0]);
    let groups = categories.len().max(1);
    let gw = (right - left) / groups;
    let bw = (gw - 10) / series.len().max(1);
    for (gi, cat) in categories.iter().enumerate() {
        let gx = left + gi * gw + 5;
        for (si, vals) in values.iter().enumerate() {
            let v = vals.get(gi).copied().unwrap_or(0.0).max(0.0);
            let v = if v.is_finite() { v } else { 0.0 };
            let h = ((bottom - top) as f64 * v / max) as usize;
            let x = gx + si * bw;
            c.rect(
                x,
                bottom - h,
                x + bw.max(2) - 1,
                bottom,
                COLORS[si % COLORS.len()],
            );
        }
        c.text(gx, bottom + 6 + (gi % 2) * 10, cat, [0, 0, 0]);
    }
    // legend
    let mut lx = left;
    for (si, name) in series.iter().enumerate() {
        let ly = H - 45 + (si / 4) * 12;
        if si % 4 == 0 {
            lx = left;
        }
        c.rect(lx, ly, lx + 8, ly + 7, COLORS[si % COLORS.len()]);
        c.text(lx + 12, ly, name, [0, 0, 0]);
        lx += 200;
    }
    std::fs::write(path, c.encode())
}
