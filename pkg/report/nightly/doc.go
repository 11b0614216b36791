// Package nightly sets runs' reports side by side: what changed from one
// night to the next (diff.json, whose new changes fail the nightly), the
// published history of the nights (index.html and each night's page), and
// two runs of the same cells compared (make bench).
package nightly
