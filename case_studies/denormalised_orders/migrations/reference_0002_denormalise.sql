-- The same copied column, kept in sync by the database itself: a rename updates every copy.
ALTER TABLE orders ADD COLUMN customer_name TEXT NOT NULL DEFAULT '';
UPDATE orders SET customer_name = (SELECT name FROM customers WHERE customers.id = orders.customer_id);
CREATE TRIGGER orders_customer_name AFTER UPDATE OF name ON customers
BEGIN
    UPDATE orders SET customer_name = NEW.name WHERE customer_id = NEW.id;
END;
