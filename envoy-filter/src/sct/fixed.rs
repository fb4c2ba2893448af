//! Decimal numbers for the decision log line, written through integer formatting: the standard library's float
//! formatting (`{:.1}`) was the only float formatting in the module and took tens of kilobytes of it.

use std::fmt;

/// `value` with `decimals` digits after the point, rounded half away from zero, as `{:.decimals$}` writes it except
/// on an exact tie; at most 18 decimals.
#[derive(Debug, Clone, Copy)]
pub struct Fixed(pub f64, pub u32);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Fixed(value, decimals) = *self;
        if value.is_nan() {
            return f.write_str("NaN");
        }
        if value.is_sign_negative() && value != 0.0 {
            f.write_str("-")?;
        }
        if value.is_infinite() {
            return f.write_str("inf");
        }
        let decimals = decimals.min(18);
        let scale = 10u64.pow(decimals);
        // Saturates past `u64::MAX`: a log line need not spell such a number out.
        let scaled = (value.abs() * scale as f64).round() as u64;
        let whole = scaled / scale;
        if decimals == 0 {
            return write!(f, "{whole}");
        }
        write!(f, "{whole}.{:0width$}", scaled % scale, width = decimals as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_the_standard_formatting_writes() {
        for value in [0.0, 0.04, 0.05001, 0.96, 1.0, 12.3456, 99.99, 1234.5678, 1e9 + 0.26, -3.21, 512.0 / 3.0] {
            for decimals in [0, 1, 2] {
                let expected = format!("{value:.prec$}", prec = decimals as usize);
                assert_eq!(Fixed(value, decimals).to_string(), expected, "{value} to {decimals}");
            }
        }
        assert_eq!(Fixed(f64::NAN, 1).to_string(), "NaN");
        assert_eq!(Fixed(f64::INFINITY, 1).to_string(), "inf");
        assert_eq!(Fixed(f64::NEG_INFINITY, 2).to_string(), "-inf");
        assert_eq!(Fixed(-0.0, 1).to_string(), "0.0");
    }
}
