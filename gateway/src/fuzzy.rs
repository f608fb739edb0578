//! Fuzzy name matching for "Perhaps you meant …" hints, after the fuzzyset algorithm
//! PostgREST uses (Data.FuzzySet: character 3- then 2-grams of the lower-cased
//! alphanumeric name padded with `-`, cosine similarity to pick candidates, then scores
//! re-ranked by Levenshtein distance).

use std::collections::HashMap;

fn normalize(s: &str) -> Vec<char> {
    s.to_lowercase().chars().filter(|c| c.is_alphanumeric() || *c == ' ' || *c == ',').collect()
}

fn grams(norm: &[char], n: usize) -> HashMap<String, f64> {
    let mut padded = vec!['-'];
    padded.extend_from_slice(norm);
    padded.push('-');
    while padded.len() < n {
        padded.push('-');
    }
    let mut out = HashMap::new();
    for w in padded.windows(n) {
        *out.entry(w.iter().collect::<String>()).or_insert(0.0) += 1.0;
    }
    out
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Candidates scoring at least `min`, best first.
pub fn ranked<'a>(candidates: &[&'a str], query: &str, min: f64) -> Vec<(&'a str, f64)> {
    let q = normalize(query);
    for n in [3, 2] {
        let qg = grams(&q, n);
        let qnorm = qg.values().map(|v| v * v).sum::<f64>().sqrt();
        let mut hits: Vec<(&str, f64)> = candidates
            .iter()
            .filter_map(|c| {
                let cg = grams(&normalize(c), n);
                let dot: f64 = qg.iter().filter_map(|(g, v)| cg.get(g).map(|w| v * w)).sum();
                let cnorm = cg.values().map(|v| v * v).sum::<f64>().sqrt();
                (dot > 0.0).then(|| (*c, dot / (qnorm * cnorm)))
            })
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1));
        hits.truncate(50);
        let mut rescored: Vec<(&str, f64)> = hits
            .into_iter()
            .map(|(c, _)| {
                let cn = normalize(c);
                let longest = cn.len().max(q.len()).max(1);
                (c, 1.0 - levenshtein(&cn, &q) as f64 / longest as f64)
            })
            .filter(|(_, s)| *s >= min)
            .collect();
        rescored.sort_by(|a, b| b.1.total_cmp(&a.1));
        if !rescored.is_empty() {
            return rescored;
        }
    }
    Vec::new()
}

pub fn best<'a>(candidates: &[&'a str], query: &str, min: f64) -> Option<(&'a str, f64)> {
    ranked(candidates, query, min).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgrest_doc_examples() {
        // Error.hs doctests and ErrorSpec: "films" for "film", "projects" for "projectx"/"projecxx",
        // nothing under 75 % for "projxxxx".
        assert_eq!(best(&["films", "roles", "actors"], "film", 0.33).map(|b| b.0), Some("films"));
        assert_eq!(best(&["directors", "roles", "actors"], "role", 0.33).map(|b| b.0), Some("roles"));
        assert_eq!(best(&["projects", "clients", "tasks"], "projectx", 0.75).map(|b| b.0), Some("projects"));
        assert_eq!(best(&["projects", "clients", "tasks"], "projecxx", 0.75).map(|b| b.0), Some("projects"));
        assert_eq!(best(&["projects", "clients", "tasks"], "projxxxx", 0.75), None);
        assert_eq!(best(&["films"], "noclosealternative", 0.33), None);
    }
}
