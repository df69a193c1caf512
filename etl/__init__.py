"""Extract and transform: EDGAR crawling and the document stages that turn raw filings into pages and items."""
