SELECT d."pk", d."name", d."estimated_sales", x."crc", x."len", x."body" FROM "domain" d LEFT JOIN "domain_rendered" x ON x."domain_pk" = d."pk" WHERE d."pk" IN (SELECT value FROM json_each($1));
