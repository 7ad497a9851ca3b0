// SPDX-License-Identifier: GPL-2.0

//! JSON, a leaf of the crate: the two ways the reports write a number, and
//! the reader of the bar's baseline file (`bar-baseline.json`): a document
//! parsed whole into a [`Json`] value, and the accessors the baseline's
//! parser (src/bar.rs) checks each field's kind with.

/// A number as the reports write it (`--json`, `replay --json`): six
/// decimals; `null` if it is not finite.
pub(crate) fn fixed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

/// A number as the baseline holds it: the shortest text that reads back
/// as the same `f64`; `null` if it is not finite.
pub(crate) fn exact(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// A JSON value, as much of JSON as a baseline needs (all of it but
/// `\u` escapes beyond the Basic Multilingual Plane).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    /// In the file's order; a key twice is an error.
    Obj(Vec<(String, Json)>),
}

fn kind(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Num(_) => "a number",
        Json::Str(_) => "a string",
        Json::Arr(_) => "an array",
        Json::Obj(_) => "an object",
    }
}

pub(crate) fn obj<'a>(j: &'a Json, what: &str) -> Result<&'a [(String, Json)], String> {
    match j {
        Json::Obj(o) => Ok(o),
        x => Err(format!("{what}: {}, not an object", kind(x))),
    }
}

pub(crate) fn field<'a>(
    o: &'a [(String, Json)],
    key: &str,
    what: &str,
) -> Result<&'a Json, String> {
    o.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("{what}: no \"{key}\""))
}

pub(crate) fn number(j: &Json, what: &str) -> Result<f64, String> {
    match j {
        Json::Num(x) => Ok(*x),
        x => Err(format!("{what}: {}, not a number", kind(x))),
    }
}

pub(crate) fn string<'a>(j: &'a Json, what: &str) -> Result<&'a str, String> {
    match j {
        Json::Str(s) => Ok(s),
        x => Err(format!("{what}: {}, not a string", kind(x))),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
        format!("line {line}, column {col}: {what}")
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected '{}'", c as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 64 {
            return Err(self.err("nested too deep"));
        }
        self.ws();
        match self.peek() {
            None => Err(self.err("unexpected end of file")),
            Some(b'{') => {
                self.i += 1;
                let mut o: Vec<(String, Json)> = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(o));
                }
                loop {
                    self.ws();
                    let at = self.i;
                    let k = self.string()?;
                    if o.iter().any(|(x, _)| *x == k) {
                        self.i = at;
                        return Err(self.err(&format!("\"{k}\" a second time")));
                    }
                    self.expect(b':')?;
                    let v = self.value(depth + 1)?;
                    o.push((k, v));
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(o));
                        }
                        _ => return Err(self.err("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Json::Arr(a));
                }
                loop {
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(a));
                        }
                        _ => return Err(self.err("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => {
                for (word, v) in [
                    ("null", Json::Null),
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                ] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        self.i += word.len();
                        return Ok(v);
                    }
                }
                Err(self.err("expected a value"))
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("unterminated string"));
                    };
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = self
                                .s
                                .get(self.i..self.i + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32);
                            let Some(ch) = hex else {
                                return Err(self.err("bad \\u escape"));
                            };
                            self.i += 4;
                            ch
                        }
                        _ => return Err(self.err("bad escape")),
                    };
                    let mut b = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                }
                0..0x20 => return Err(self.err("control character in a string")),
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err("string not UTF-8"))
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.i += 1;
            }
            p.i > s
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let mut ok = digits(self);
        if ok && self.peek() == Some(b'.') {
            self.i += 1;
            ok = digits(self);
        }
        if ok && matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            ok = digits(self);
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        match text.parse::<f64>() {
            Ok(x) if ok && x.is_finite() => Ok(Json::Num(x)),
            _ => {
                self.i = start;
                Err(self.err("bad number"))
            }
        }
    }
}

/// One JSON document, nothing after it.
pub(crate) fn parse_json(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err("something after the end of the document"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reads_what_json_is() {
        let j =
            parse_json(r#" { "a": [1, -2.5e3, true, false, null], "b\u0041\n": "x" } "#).unwrap();
        assert_eq!(
            j,
            Json::Obj(vec![
                (
                    "a".into(),
                    Json::Arr(vec![
                        Json::Num(1.0),
                        Json::Num(-2500.0),
                        Json::Bool(true),
                        Json::Bool(false),
                        Json::Null
                    ])
                ),
                ("bA\n".into(), Json::Str("x".into())),
            ])
        );
        for bad in [
            "01x",
            "1.",
            "-",
            "{\"a\" 1}",
            "[1,]",
            "\"a",
            "{\"a\":1,}",
            "nul",
        ] {
            assert!(parse_json(bad).is_err(), "{bad}");
        }
    }
}
