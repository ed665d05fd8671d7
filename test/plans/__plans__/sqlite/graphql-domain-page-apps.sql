SELECT r."pk" FROM "domain" r WHERE r."country_code" = $1 ORDER BY r."rank" ASC, r."pk" ASC LIMIT $2;
SELECT d."pk", d."name", d."rank", (SELECT json_group_array(json_array(c."domain_pk", c."app_pk", c."installed_at", c."removed_at") ORDER BY c."installed_at", c."app_pk") FROM "domain_app" c WHERE c."domain_pk" = d."pk") FROM "domain" d WHERE d."pk" IN (SELECT value FROM json_each($1));
