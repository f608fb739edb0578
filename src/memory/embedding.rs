//! Checks what the injected embedding callback returned before any of it is stored:
//! one vector per text, each of the configured dimension, every component finite, and
//! not all zero (cosine similarity is undefined for the zero vector).

use super::MemoryError;

/// Vectors as the callback returned them (components as f64, `None` where a component
/// was not a number), checked and narrowed to the f32 that pgvector stores.
pub fn check(vectors: Vec<Vec<Option<f64>>>, texts: usize, dimensions: usize) -> Result<Vec<Vec<f32>>, MemoryError> {
    if vectors.len() != texts {
        return Err(MemoryError::EmbeddingFailed(format!(
            "the embedding callback returned {} vectors for {texts} text(s)",
            vectors.len()
        )));
    }
    vectors
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if v.len() != dimensions {
                return Err(MemoryError::DimensionMismatch(format!(
                    "embedding {i} has {} dimensions; this MemoryTools instance (and the agent_memories.embedding column) expects {dimensions}",
                    v.len()
                )));
            }
            let mut out = Vec::with_capacity(v.len());
            for (j, x) in v.into_iter().enumerate() {
                let x = x.ok_or_else(|| MemoryError::EmbeddingFailed(format!("embedding {i}[{j}] is not a number")))?;
                // f32 overflow to ±inf is as unusable as a non-finite input.
                let narrowed = x as f32;
                if !x.is_finite() || !narrowed.is_finite() {
                    return Err(MemoryError::EmbeddingFailed(format!(
                        "embedding {i}[{j}] is {}, not a finite number",
                        crate::number::display(x)
                    )));
                }
                out.push(narrowed);
            }
            if out.iter().all(|x| *x == 0.0) {
                return Err(MemoryError::EmbeddingFailed(format!("embedding {i} is the zero vector")));
            }
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(xs: &[f64]) -> Vec<Option<f64>> {
        xs.iter().copied().map(Some).collect()
    }

    #[test]
    fn accepts_well_formed_vectors() {
        assert_eq!(check(vec![v(&[0.5, -1.0, 0.0])], 1, 3).unwrap(), vec![vec![0.5f32, -1.0, 0.0]]);
    }

    #[test]
    fn refuses_wrong_counts_sizes_and_values() {
        let code = |r: Result<Vec<Vec<f32>>, MemoryError>| crate::ErrorReport::from(r.unwrap_err()).code.as_str();
        assert_eq!(code(check(vec![], 1, 3)), "embedding_failed");
        assert_eq!(code(check(vec![v(&[1.0]), v(&[1.0])], 1, 1)), "embedding_failed");
        assert_eq!(code(check(vec![v(&[1.0, 2.0])], 1, 3)), "dimension_mismatch");
        assert_eq!(code(check(vec![v(&[1.0, f64::NAN, 0.0])], 1, 3)), "embedding_failed");
        assert_eq!(code(check(vec![v(&[1.0, f64::INFINITY, 0.0])], 1, 3)), "embedding_failed");
        assert_eq!(code(check(vec![v(&[1e300, 1.0, 0.0])], 1, 3)), "embedding_failed");
        assert_eq!(code(check(vec![vec![Some(1.0), None, Some(0.0)]], 1, 3)), "embedding_failed");
        assert_eq!(code(check(vec![v(&[0.0, 0.0, 0.0])], 1, 3)), "embedding_failed");
    }
}
