// Re-exports the vendored Preact + htm standalone module (htm 3.1.1) so modules import one path.
export * from '../vendor/htm-preact-standalone.mjs';
