-- No copy at all: the order list is a view over the normalised tables.
CREATE VIEW order_list AS
    SELECT orders.id AS id, customers.name AS customer_name, orders.total AS total
    FROM orders JOIN customers ON customers.id = orders.customer_id;
