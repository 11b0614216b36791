package sources

import "testing"

func TestDocument(t *testing.T) {
	m := []byte("apiVersion: v1\nkind: A\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: two\nspec: {}\n")
	doc, err := Document(m, "two")
	if err != nil || doc != "apiVersion: v1\nkind: B\nmetadata:\n  name: two\nspec: {}\n" {
		t.Fatalf("Document = %q, %v", doc, err)
	}
	if _, err := Document(m, "three"); err == nil {
		t.Fatal("missing document must be an error")
	}
}
