// Package conformance holds the Go runner of the conformance suite
// (tests/conformance/README.md of the repository is its specification):
// TestConformance replays every scenario through the Go SDK against a live
// `ramino serve --test-seed` and writes tests/conformance/transcripts/go/.
package conformance
