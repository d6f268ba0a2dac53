//! The timings a benchmark script prints in MLX's own form: `benchmarks/python/time_utils.py`
//! prints `Timing NAME ... 1.23456 msec`, `benchmarks/cpp/time_utils.h` prints
//! `Timing NAME ... 1.2345 msec` and `Timing (MSG) NAME ... 1.2345 msec`.

/// One script run's timings, in the order printed. A name printed again (upstream's
/// `gather_qmm_bench.py` times three calls all named `gather_mm`) gets ` #2`, ` #3`, ...
pub fn parse(stdout: &str) -> Result<Vec<(String, f64)>, String> {
    let mut timings: Vec<(String, f64)> = Vec::new();
    for line in stdout.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix("Timing ") else { continue };
        let Some(rest) = rest.strip_suffix(" msec") else { continue };
        let Some((name, value)) = rest.rsplit_once(" ... ") else { continue };
        let ms: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("timing line `{line}`: `{value}` is not a number"))?;
        if !(ms.is_finite() && ms > 0.0) {
            return Err(format!("timing line `{line}`: {ms} ms is not a positive time"));
        }
        let name = name.trim();
        let seen = timings
            .iter()
            .filter(|(n, _)| n == name || n.starts_with(&format!("{name} #")))
            .count();
        let name = if seen == 0 { name.to_string() } else { format!("{name} #{}", seen + 1) };
        timings.push((name, ms / 1e3));
    }
    if timings.is_empty() {
        return Err("it printed no `Timing NAME ... T msec` line".into());
    }
    Ok(timings)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn python_and_cpp_forms_and_repeated_names() {
        let out =
            "loading\nTiming gather_mm ... 12.50000 msec\nTiming gather_mm ... 2.00000 msec\n\
                   Timing (bf16 r=4) qmm ... 0.5 msec\nTiming equivalent_matmul ... 1e1 msec\n\
                   Timing gather_mm ... 3 msec\nnot a Timing line ... 1 msec\n";
        let t = parse(out).unwrap();
        let names: Vec<&str> = t.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["gather_mm", "gather_mm #2", "(bf16 r=4) qmm", "equivalent_matmul", "gather_mm #3"]
        );
        let seconds: Vec<f64> = t.iter().map(|(_, s)| *s).collect();
        assert_eq!(seconds, [0.0125, 0.002, 0.0005, 0.01, 0.003]);
    }

    #[test]
    fn no_timing_and_bad_values_are_errors() {
        assert!(parse("Timing x ... \n").unwrap_err().contains("no `Timing"));
        assert!(parse("").is_err());
        assert!(parse("Timing x ... fast msec").unwrap_err().contains("not a number"));
        assert!(parse("Timing x ... 0 msec").unwrap_err().contains("not a positive time"));
        assert!(parse("Timing x ... nan msec").unwrap_err().contains("not a positive time"));
    }
}
