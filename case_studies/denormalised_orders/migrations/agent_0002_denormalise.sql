-- "The order list joins customers on every page view: copy the name into orders."
ALTER TABLE orders ADD COLUMN customer_name TEXT NOT NULL DEFAULT '';
UPDATE orders SET customer_name = (SELECT name FROM customers WHERE customers.id = orders.customer_id);
