SELECT d."pk", d."name", d."estimated_sales", x."crc", x."len", x."body" FROM "snapshot"."domain" d LEFT JOIN "snapshot"."domain_rendered" x ON x."domain_pk" = d."pk" WHERE d."pk" = ANY($1);
