ketos segtrain   -f alto transcript/document-*xml
